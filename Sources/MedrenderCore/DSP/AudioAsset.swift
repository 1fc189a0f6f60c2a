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

/// A bed's loop, held as 16-bit samples and a scale: half the memory of 32-bit floats, for the
/// longest sounds a render holds (a bed's loop is 30 to 60 s). A sample's value is
/// `Float(samples[i]) * scale`; the scale puts the loop's peak at full scale, so what the 16 bits
/// add is 96 dB under the loop's own peak, and further under the bed's level in the mix.
public struct LoopAsset: Sendable {
    /// 1 (mono) or 2 (stereo).
    public let channels: Int
    /// Interleaved samples, `frameCount × channels` of them.
    public let samples: [Int16]
    /// The value of one step.
    public let scale: Float

    public var frameCount: Int { samples.count / channels }

    /// Rounds `asset`'s samples to 16 bits under a scale that fits its peak.
    public init(quantizing asset: AudioAsset) {
        self.init(channels: asset.channels, quantizing: asset.samples)
    }

    /// Rounds interleaved `samples` to 16 bits under a scale that fits their peak.
    public init(channels: Int, quantizing samples: [Float]) {
        precondition(channels == 1 || channels == 2, "assets are mono or stereo")
        precondition(samples.count % channels == 0, "samples must be whole frames")
        self.channels = channels
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        let scale = peak > 0 ? peak / Float(Int16.max) : 1
        let steps = 1 / scale
        self.scale = scale
        self.samples = samples.map { Int16(max(-32767, min(32767, ($0 * steps).rounded()))) }
    }

    /// The loop as 32-bit floats.
    public var floats: [Float] { samples.map { Float($0) * scale } }
}
