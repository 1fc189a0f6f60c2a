/// Reads the notation breathing apps use for a pattern: `4-7-8-0`, `5.5-0-5.5-0`, `4-4-4`.
///
/// Three parts are inhale-hold-exhale (no hold after the exhale); four are
/// inhale-hold-exhale-hold; five are inhale-hold-topup-exhale-hold (the physiological sigh).
/// Each part is seconds, to the millisecond, from 0 to 300 (a breath-retention hold).
public enum PatternNotation {
    public static let phaseRange: ClosedRange<Double> = 0...300

    /// Why a notation cannot be read.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ text: String) throws(Failure) -> BreathPattern {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map {
            String($0).trimmingSpaces
        }
        guard (3...5).contains(parts.count), !text.hasPrefix("-") else {
            throw Failure(description:
                "'\(text)' is not a pattern: write inhale-hold-exhale-hold in seconds, such as 4-7-8-0 or 5.5-0-5.5-0")
        }
        var values: [SessionTime] = []
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), part.allSatisfy({ $0.isNumber || $0 == "." }) else {
                throw Failure(description:
                    "'\(part)' in '\(text)' is not a number of seconds: use numbers from 0 to 300, such as 4-7-8-0")
            }
            guard phaseRange.contains(value) else {
                throw Failure(description: "phase \(index + 1) of '\(text)' is \(part) s; each phase must be 0 to 300 s")
            }
            values.append(SessionTime(seconds: value)!)
        }
        let pattern: BreathPattern
        switch values.count {
        case 3: pattern = BreathPattern(inhale: values[0], holdIn: values[1], exhale: values[2])
        case 4: pattern = BreathPattern(inhale: values[0], holdIn: values[1], exhale: values[2], holdOut: values[3])
        default:
            pattern = BreathPattern(
                inhale: values[0], holdIn: values[1], topUp: values[2], exhale: values[3], holdOut: values[4])
        }
        return pattern
    }
}

extension PatternNotation {
    /// Reads a Prana-style ratio, `1:4:2:0`, times a unit in seconds: `1:4:2:0` × 2 s is 2-8-4-0.
    /// Three to five parts, as in `parse(_:)`; each part a number ≥ 0.
    public static func parse(ratio text: String, unitSeconds: Double) throws(Failure) -> BreathPattern {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard (3...5).contains(parts.count) else {
            throw Failure(description: "'\(text)' is not a ratio: write inhale:hold:exhale:hold, such as 1:4:2:0")
        }
        var seconds: [String] = []
        for part in parts {
            guard let value = Double(part), value >= 0, part.allSatisfy({ $0.isNumber || $0 == "." }) else {
                throw Failure(description: "'\(part)' in '\(text)' is not a ratio part: use numbers ≥ 0, such as 1:4:2:0")
            }
            seconds.append(String(value * unitSeconds))
        }
        return try parse(seconds.joined(separator: "-"))
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
