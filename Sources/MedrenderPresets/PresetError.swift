import MedrenderCore

/// A preset that cannot be used: what is wrong, where (file, field, line and column) and how to fix it.
public struct PresetError: DiagnosedError, Hashable {
    /// The preset file, as given.
    public var file: String
    /// The field's path, such as `pattern.inhale` or `ambience[0].gain` (a request's field as `{voice}`);
    /// empty for the whole file.
    public var field: String
    /// 1-based line and column, when known.
    public var line: Int?
    public var column: Int?
    /// What is wrong, with the allowed values and how to fix it.
    public var message: String
    public var category: ErrorCategory

    public init(file: String, field: String = "", line: Int? = nil, column: Int? = nil, message: String,
                category: ErrorCategory = .badData) {
        self.file = file
        self.field = field
        self.line = line
        self.column = column
        self.message = message
        self.category = category
    }

    public var description: String { worded(for: .commandLine) }

    /// The message, a field of the request it names (`{voice}`) as `face` names it.
    public func worded(for face: Face) -> String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        let subject = field.isEmpty ? "" : "\(field): "
        return face.naming((location.isEmpty ? "" : "\(location): ") + subject + message)
    }
}

/// Suggests the closest of `candidates` to a misspelled `word`, when one is close enough.
public func didYouMean(_ word: String, among candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
    let lower = Array(word.lowercased())
    let scored = candidates.map { ($0, distance(lower, Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
}
