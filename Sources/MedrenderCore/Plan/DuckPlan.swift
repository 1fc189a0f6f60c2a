/// How the ambience dips under the voice: a gain envelope computed from the voice schedule.
///
/// Each voiced stretch is reached at full depth on the voice's first frame (the attack ends there,
/// so the dip starts before the word) and held to its last frame; the release follows it. Stretches
/// closer than attack + release + `holdFrames`, or closer than `mergeFrames` (a breath cycle), are
/// merged, so the bed stays down between close clips instead of pumping: prompts at every phase of
/// a 4-4-4-4 pattern make one dip, not one a phase. A stretch whose attack would begin while the ambience is still fading
/// in is at full depth from the fade-in's start: the bed rises to its ducked level and never dips
/// in the middle of its own fade-in.
public struct DuckPlan: Hashable, Sendable {
    /// The linear gain at full depth.
    public let gain: Float
    public let attackFrames: Int64
    public let releaseFrames: Int64
    /// The longest gap between two dips' ramps that is held down rather than released.
    public let holdFrames: Int64
    /// The longest gap between two voiced stretches that is held down whatever the ramps (a
    /// breath cycle), default 0.
    public let mergeFrames: Int64
    public let curve: FadeCurve
    /// Voiced stretches `[start, end)`, sorted and merged.
    public let stretches: [Stretch]

    public struct Stretch: Hashable, Sendable {
        public var start: Int64
        public var end: Int64
    }

    /// - Parameters:
    ///   - holdFrames: gaps between ramps up to this many frames are held at depth, default 0.
    ///   - fadeIn: the ambience's first fade-in, `[start, end)` in frames, when it has one.
    ///   - mergeFrames: gaps between voiced stretches up to this many frames are held at depth, default 0.
    public init(gain: Float, attackFrames: Int64, releaseFrames: Int64, holdFrames: Int64 = 0, mergeFrames: Int64 = 0,
                curve: FadeCurve = .halfCosine, voiced: [(Int64, Int64)], fadeIn: Range<Int64>? = nil) {
        self.mergeFrames = mergeFrames
        self.gain = gain
        self.curve = curve
        self.attackFrames = attackFrames
        self.releaseFrames = releaseFrames
        self.holdFrames = holdFrames
        var merged: [Stretch] = []
        for (start, end) in voiced.sorted(by: { $0.0 < $1.0 }) where end > start {
            var start = start
            if let fadeIn, start - attackFrames < fadeIn.upperBound, end > fadeIn.lowerBound {
                start = min(start, fadeIn.lowerBound)
            }
            if let last = merged.last, start - attackFrames <= last.end + releaseFrames + holdFrames || start - last.end <= mergeFrames {
                merged[merged.count - 1].end = max(last.end, end)
            } else {
                merged.append(Stretch(start: start, end: end))
            }
        }
        self.stretches = merged
    }

    /// The gain at `frame` within `stretch` and its ramps (1 outside them).
    @inline(__always)
    public func gain(at frame: Int64, in stretch: Stretch) -> Float {
        if frame >= stretch.start && frame < stretch.end { return gain }
        var depth: Double = 0
        if frame < stretch.start {
            let into = frame - (stretch.start - attackFrames)
            guard into >= 0, attackFrames > 0 else { return 1 }
            depth = curve.value(at: Double(into + 1) / Double(attackFrames))
        } else {
            let into = frame - stretch.end
            guard into < releaseFrames else { return 1 }
            depth = 1 - curve.value(at: Double(into + 1) / Double(releaseFrames))
        }
        return Float(1 - depth * Double(1 - gain))
    }

    /// The first stretch whose release has not ended by `frame` (binary search).
    public func firstStretch(endingAfter frame: Int64) -> Int {
        var low = 0, high = stretches.count
        while low < high {
            let mid = (low + high) / 2
            if stretches[mid].end + releaseFrames <= frame { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The gain at `frame`, searching the stretches (for tests and one-off use; the mixer walks
    /// them with a cursor).
    public func gain(at frame: Int64) -> Float {
        for stretch in stretches where frame >= stretch.start - attackFrames && frame < stretch.end + releaseFrames {
            return gain(at: frame, in: stretch)
        }
        return 1
    }
}
