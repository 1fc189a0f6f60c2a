import MedrenderCore
import MedrenderPresets

/// Why a render, a speech, a video or a build cannot be done, beyond the preset and I/O errors:
/// a message and its kind, the one error of that shape.
public struct RenderError: DiagnosedError, Hashable {
    /// What went wrong and how to fix it, a field it names written `{name}` (see `Face`).
    public var message: String
    public var category: ErrorCategory

    public init(_ message: String, category: ErrorCategory) {
        self.message = message
        self.category = category
    }

    public var description: String { worded(for: .commandLine) }

    public func worded(for face: Face) -> String { face.naming(message) }

    static func plan(_ error: PlanError, preset: String) -> RenderError {
        RenderError("\(preset): \(error)", category: .badData)
    }

    public static func missingSound(_ ref: SoundRef, preset: String, library: PresetLibrary) -> RenderError {
        let offers = library.soundNames()
        var message = "\(preset): the sound '\(ref)' was not found"
        if let guess = didYouMean(ref.name, among: offers) { message += " (did you mean '\(guess)'?)" }
        message += "; Sounds/ offers: \(offers.isEmpty ? "nothing" : offers.joined(separator: ", "))"
        return RenderError(message, category: .missingInput)
    }
}
