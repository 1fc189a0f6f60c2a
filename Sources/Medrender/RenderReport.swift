/// What a render did, for people and for scripts.
public struct RenderReport: Sendable, Codable, Hashable {
    public var output: String
    public var rate: Int
    public var channels: Int
    public var frames: Int64
    public var durationSeconds: Double
    public var cycles: Int
    /// Integrated loudness of the mix before the gain, in LUFS. A lossy file of a session levelled
    /// on its voice measures the voice alone before the gain (the mix's own loudness sets nothing
    /// there): its figure is the output's before encoding less the gain, when the limiter never
    /// acted and the output was measured before encoding (an OGG at 44.1 kHz and over); else nil.
    public var measuredLoudnessLUFS: Double?
    /// The gain applied to reach the target, in dB: pass 1's, raised for what the limiter takes
    /// off an output written once, or corrected by what a lossy output decoded to.
    public var gainDecibels: Double
    /// Integrated loudness of the output, in LUFS. An OGG, Opus or MP3 output is measured as it
    /// decodes (Opus at 48 kHz); a WAV or FLAC one as its samples go to the encoder, before
    /// they are quantized (and dithered, at 16 bits). The same holds for the three figures below,
    /// but for an OGG at 44.1 kHz and over: its peaks are those of the packets that can hold them,
    /// as they decode, and its loudness what went into the encoder moved by what the codec did to
    /// a sample of it (within 0.3 LU of the whole decode's; its range is what went into the
    /// encoder's): `SelectiveDecode`.
    public var loudnessLUFS: Double?
    /// The voice's own integrated loudness in the output, in LUFS (the voice layer through the
    /// same chain and the same limiter gains as the mix, before encoding): what the target sets
    /// in a session with a voice. Nil for a session without one.
    public var speechLoudnessLUFS: Double? = nil
    /// Loudness range of the output, in LU.
    public var loudnessRangeLU: Double?
    /// True peak of the output, in dBTP: looked for between samples at a spacing of at most
    /// 1/192000 s (4× at 48 kHz, 24× at 8 kHz), around the samples within 6 dB of the highest
    /// so far.
    public var truePeakDBTP: Double?
    /// The stems written, one per layer.
    public var stems: [String] = []
    /// What the render says besides its figures: a sound replaced by a bundled one, the plan's
    /// notes (how the session was fitted), a cover a WAV cannot hold, a target missed, a ceiling
    /// a lossy output breaks as it decodes.
    public var warnings: [String] = []
    /// The largest sample of the output, in dBFS (measured as the loudness is).
    public var samplePeakDBFS: Double?
    /// The deepest gain reduction of the true-peak limiter, in dB (0 when it never acted).
    public var limiterReductionDecibels: Double
    /// The voice that spoke the guided script, prompts and lead-in, as `ENGINE:VOICE`
    /// (`piper:en_US-joe-medium`); nil when nothing is spoken.
    public var voice: String? = nil
    /// The share of an OGG's packets decoded to check it, 0…1: 1 under 44.1 kHz (every packet,
    /// for the loudness as decoded too), less at 44.1 kHz and over (only the packets that can hold
    /// its peaks: `SelectiveDecode`). Nil for other formats.
    public var decodedPacketShare: Double? = nil
}

/// How far a render has come: pass 1 measures, pass 2 writes (from 0 again each time a lossy
/// output is written again), pass 3 reads an Opus or MP3 output back to check it (an OGG is
/// checked within pass 2). The limited pass between 1 and 2 reports nothing.
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

/// The share of a render's time each pass takes: measuring (pass 1), writing (pass 2) and, for
/// an Opus or MP3 output, reading it back to check it (pass 3). The measuring pass only mixes, so
/// it is cheap; writing also limits (oversampled true peak) and encodes. The limited pass and a
/// lossy output's writes after the first are not weighed.
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
    /// 1/56/43 %, MP3 1/79/20 %. Without the check its share goes to writing.
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
