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

/// How far a render has come: pass 1 measures, pass 2 writes, pass 3 decodes a lossy file back
/// to check it.
public struct RenderProgress: Sendable {
    public var pass: Int
    public var framesDone: Int64
    public var totalFrames: Int64
    /// What each pass costs, to weigh them in `fraction`.
    public var weights: PassWeights

    public init(pass: Int, framesDone: Int64, totalFrames: Int64, weights: PassWeights = .even) {
        self.pass = pass
        self.framesDone = framesDone
        self.totalFrames = totalFrames
        self.weights = weights
    }

    /// How far the whole render is, 0…1, each pass counted by what it costs.
    public var fraction: Double { weights.fraction(pass: pass, framesDone: framesDone, totalFrames: totalFrames) }
}

/// The share of a render's time each pass takes: measuring (pass 1), writing (pass 2) and, for a
/// lossy file, decoding it back to check it (pass 3). The measuring pass only mixes, so it is
/// cheap; writing also limits (oversampled true peak) and encodes.
public struct PassWeights: Sendable, Hashable {
    public var measuring: Double
    public var writing: Double
    public var checking: Double

    public init(measuring: Double, writing: Double, checking: Double) {
        let sum = measuring + writing + checking
        self.measuring = measuring / sum
        self.writing = writing / sum
        self.checking = checking / sum
    }

    /// Two passes of one cost, for callers that do not say.
    public static let even = PassWeights(measuring: 1, writing: 1, checking: 0)

    /// The shares measured on release builds (10-minute box-breath at 48 kHz on two cores, the
    /// time from the sounds loaded to the last check): WAV 4/96 %, FLAC 4/96 %, OGG 1/99 % (an
    /// OGG file is decoded as it is written, on another thread: no pass of its own), Opus
    /// 1/56/43 %, MP3 1/79/20 %. Without the check (a stream) its share goes to writing.
    public static func forFormat(_ format: OutputFormat, checked: Bool) -> PassWeights {
        let shares: (Double, Double, Double)
        switch format {
        case .wav: shares = (4, 96, 0)
        case .flac: shares = (4, 96, 0)
        case .ogg: shares = (1, 99, 0)
        case .opus: shares = (1, 56, 43)
        case .mp3: shares = (1, 79, 20)
        }
        return checked ? PassWeights(measuring: shares.0, writing: shares.1, checking: shares.2)
            : PassWeights(measuring: shares.0, writing: shares.1 + shares.2, checking: 0)
    }

    /// How far a render is, 0…1, when pass `pass` has done `framesDone` of `totalFrames`.
    public func fraction(pass: Int, framesDone: Int64, totalFrames: Int64) -> Double {
        let done = min(1, max(0, Double(framesDone) / Double(max(1, totalFrames))))
        switch pass {
        case ...1: return measuring * done
        // The ends are exactly 1, whatever the shares' rounding.
        case 2: return checking == 0 && done == 1 ? 1 : measuring + writing * done
        default: return checking == 0 || done == 1 ? 1 : min(1, measuring + writing + checking * done)
        }
    }
}
