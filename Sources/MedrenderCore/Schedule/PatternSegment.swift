/// How long a segment, or a ramp, lasts.
public enum SegmentSpan: Hashable, Sendable {
    /// As many whole cycles as fit in this time.
    case duration(SessionTime)
    /// Exactly this many whole cycles.
    case cycles(Int)
}

/// A pattern that eases from its segment's pattern to another over a span.
public struct PatternRamp: Hashable, Sendable {
    /// The lengths at the end of the ramp; they hold from then on.
    public var target: BreathPattern
    public var span: SegmentSpan
    public var curve: FadeCurve

    public init(target: BreathPattern, span: SegmentSpan, curve: FadeCurve = .linear) {
        self.target = target
        self.span = span
        self.curve = curve
    }
}

/// A stretch of the breathing section with one pattern, which may ramp.
public struct PatternSegment: Hashable, Sendable {
    public var pattern: BreathPattern
    public var ramp: PatternRamp?
    /// How long this segment lasts; nil means "the rest of the session" (the last segment only).
    public var span: SegmentSpan?
    /// A name for chapters and cue sheets.
    public var name: String?
    /// The cues this segment plays instead of the session's, by phase kind (nil: no cue); the
    /// kinds not listed keep the session's.
    public var cues: [PhaseKind: CueSound?] = [:]
    /// A voice clip spoken as the segment starts, on its first frame.
    public var voice: SoundRef?
    /// The ambience bed that takes over as the segment starts (crossfaded about its first breath).
    public var ambience: AmbienceBed?

    public init(pattern: BreathPattern, ramp: PatternRamp? = nil, span: SegmentSpan? = nil, name: String? = nil) {
        self.pattern = pattern
        self.ramp = ramp
        self.span = span
        self.name = name
    }

    /// The lengths of the cycle that starts `elapsed` into the segment, as its `index`-th cycle.
    ///
    /// Ramped lengths are rounded to the millisecond, so every boundary stays exact.
    public func pattern(cycle index: Int, elapsed: SessionTime) -> BreathPattern {
        guard let ramp else { return pattern }
        let progress: Double
        switch ramp.span {
        case .cycles(let n): progress = n <= 0 ? 1 : Double(index) / Double(n)
        case .duration(let d):
            progress = d.milliseconds <= 0 ? 1 : Double(elapsed.milliseconds) / Double(d.milliseconds)
        }
        if progress >= 1 { return ramp.target }
        let x = ramp.curve.value(at: progress)
        var result = pattern
        for kind in PhaseKind.allCases {
            let from = Double(pattern[kind].milliseconds), to = Double(ramp.target[kind].milliseconds)
            result[kind] = SessionTime(milliseconds: Int64((from + (to - from) * x).rounded()))
        }
        return result
    }

    /// The shortest cycle this segment can play: the bound that keeps a schedule finite.
    public var shortestCycle: SessionTime {
        guard let ramp else { return pattern.cycleLength }
        return min(pattern.cycleLength, ramp.target.cycleLength)
    }
}
