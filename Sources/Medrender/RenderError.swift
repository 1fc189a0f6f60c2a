import MedrenderCore
import MedrenderPresets

/// Why a render cannot be done, beyond the preset and I/O errors.
public struct RenderError: DiagnosedError, Hashable {
    public var message: String
    public var category: ErrorCategory

    public init(_ message: String, category: ErrorCategory) {
        self.message = message
        self.category = category
    }

    public var description: String { message }

    static func plan(_ error: PlanError, preset: String) -> RenderError {
        RenderError("\(preset): \(error)", category: .badData)
    }

    public static func missingSound(_ ref: SoundRef, preset: String, library: PresetLibrary) -> RenderError {
        let offers = library.soundNames()
        var message = "\(preset): the sound '\(ref)' was not found"
        if let guess = offers.min(by: { editDistance($0, ref.name) < editDistance($1, ref.name) }),
            editDistance(guess, ref.name) <= max(2, ref.name.count / 3)
        {
            message += " (did you mean '\(guess)'?)"
        }
        message += "; Sounds/ offers: \(offers.isEmpty ? "nothing" : offers.joined(separator: ", "))"
        return RenderError(message, category: .missingInput)
    }
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
