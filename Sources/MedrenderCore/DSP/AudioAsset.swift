/// Decoded audio held in memory: interleaved Float32 frames at the output rate.
///
/// Assets are small (clips, loops, cue tones); a session is never held in memory.
public struct AudioAsset: Sendable {
    /// 1 (mono) or 2 (stereo).
    public let channels: Int
    /// Interleaved samples, `frameCount × channels` of them.
    public let samples: [Float]

    public var frameCount: Int { samples.count / channels }

    public init(channels: Int, samples: [Float]) {
        precondition(channels == 1 || channels == 2, "assets are mono or stereo")
        precondition(samples.count % channels == 0, "samples must be whole frames")
        self.channels = channels
        self.samples = samples
    }

    /// The largest absolute sample value.
    public var peak: Float {
        samples.reduce(0) { max($0, abs($1)) }
    }
}
