/// The lengths a preset allows for its phases, checked against its own patterns and against any
/// override from the command line.
public struct PatternLimits: Hashable, Sendable {
    /// The allowed range of each phase kind, where the preset limits it.
    public var ranges: [PhaseKind: ClosedRange<SessionTime>]
    /// The exhale must be at least this much longer than the inhale, when set.
    public var exhaleOverInhale: SessionTime?

    public init(ranges: [PhaseKind: ClosedRange<SessionTime>] = [:], exhaleOverInhale: SessionTime? = nil) {
        self.ranges = ranges
        self.exhaleOverInhale = exhaleOverInhale
    }

    /// No limits beyond the global ones.
    public static let none = PatternLimits()

    /// The first limit `pattern` breaks, as a sentence that says how to fix it; nil when it keeps them all.
    public func violation(of pattern: BreathPattern) -> String? {
        for kind in PhaseKind.allCases {
            guard let range = ranges[kind] else { continue }
            let value = pattern[kind]
            if !range.contains(value) {
                return "\(kind.rawValue) of \(value) s is outside this preset's \(range.lowerBound)–\(range.upperBound) s"
            }
        }
        if let margin = exhaleOverInhale, pattern.exhale - pattern.inhale < margin {
            return "the exhale (\(pattern.exhale) s) must be at least \(margin) s longer than the inhale "
                + "(\(pattern.inhale) s) in this preset: make the exhale at least \(pattern.inhale + margin) s "
                + "or the inhale at most \(pattern.exhale - margin) s"
        }
        return nil
    }
}

/// The limits every pattern keeps, whatever the preset says.
public enum GlobalLimits {
    /// Every phase: 0 to 300 s (long holds for breath-retention practice; a preset's `limits` can
    /// hold its phases to less).
    public static let phase = SessionTime.zero...SessionTime.seconds(300)
    /// A whole cycle: at least 1 s.
    public static let shortestCycle = SessionTime.seconds(1)

    /// The first global limit `pattern` breaks, as a sentence; nil when it keeps them.
    public static func violation(of pattern: BreathPattern) -> String? {
        for kind in PhaseKind.allCases where !phase.contains(pattern[kind]) {
            return "\(kind.rawValue) of \(pattern[kind]) s is out of range; each phase must be 0 to 300 s"
        }
        if pattern.cycleLength < shortestCycle {
            return "a cycle of \(pattern.cycleLength) s is too short; a cycle must last at least \(shortestCycle) s"
        }
        return nil
    }
}

extension Session {
    /// Every pattern the session can play: each segment's start and ramp target.
    public var patterns: [BreathPattern] {
        segments.flatMap { [$0.pattern] + ($0.ramp.map { [$0.target] } ?? []) }
    }

    /// Replaces the breathing with one pattern (`--pattern`).
    public mutating func replacePattern(with pattern: BreathPattern) {
        segments = [PatternSegment(pattern: pattern)]
    }

    /// Sets one phase in every segment and ramp target (`--inhale`, `--exhale`, …).
    public mutating func override(_ kind: PhaseKind, with length: SessionTime) {
        for i in segments.indices {
            segments[i].pattern[kind] = length
            segments[i].ramp?.target[kind] = length
        }
    }

    /// The first limit, the preset's or a global one, that a pattern of this session breaks.
    public var limitViolation: String? {
        for pattern in patterns {
            if let v = GlobalLimits.violation(of: pattern) ?? limits.violation(of: pattern) {
                return "pattern \(pattern): \(v)"
            }
        }
        return nil
    }
}
