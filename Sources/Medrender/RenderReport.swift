/// What a render did, for people and for scripts.
public struct RenderReport: Sendable, Codable, Hashable {
    public var output: String
    public var rate: Int
    public var channels: Int
    public var frames: Int64
    public var durationSeconds: Double
    public var cycles: Int
    /// Integrated loudness of the mix before the gain, in LUFS.
    public var measuredLoudnessLUFS: Double?
    /// The gain applied to reach the target, in dB.
    public var gainDecibels: Double
    /// Integrated loudness of what was written, in LUFS (before 16-bit dither or encoding).
    public var loudnessLUFS: Double?
    /// Loudness range of what was written, in LU.
    public var loudnessRangeLU: Double?
    /// True peak of what was written, in dBTP (4× interpolated near the peaks).
    public var truePeakDBTP: Double?
    /// The stems written, one per layer.
    public var stems: [String] = []
    /// What the render had to work around (a missing sound replaced by a bundled one).
    public var warnings: [String] = []
    /// The largest sample written, in dBFS.
    public var samplePeakDBFS: Double?
    /// The deepest gain reduction of the true-peak limiter, in dB (0 when it never acted).
    public var limiterReductionDecibels: Double
}

/// How far a render has come: pass 1 measures, pass 2 writes.
public struct RenderProgress: Sendable {
    public var pass: Int
    public var framesDone: Int64
    public var totalFrames: Int64
}
