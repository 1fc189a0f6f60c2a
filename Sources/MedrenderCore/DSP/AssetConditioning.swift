extension AudioAsset {
    /// The asset with each channel's mean taken out: a sound's DC offset, which would otherwise
    /// sit under the whole mix (and click at every fade), removed once when it is loaded.
    public func withoutDCOffset() -> AudioAsset {
        var out = samples
        Self.removeDCOffset(from: &out, channels: channels)
        return AudioAsset(channels: channels, samples: out)
    }

    /// Takes each channel's mean out of `samples` (interleaved, `channels` of them), in place: a
    /// sound as it loads is not copied to lose its offset. Floats, or 16 bits at `Int16.heldStep`
    /// (each sample rounded again to the step).
    @inlinable
    public static func removeDCOffset<Sample: SoundSample>(from samples: inout [Sample], channels: Int) {
        let frames = samples.count / channels
        guard frames > 0 else { return }
        // Each channel summed in frame order, by stride (no division a sample).
        var means = [Double](repeating: 0, count: channels)
        samples.withUnsafeBufferPointer { p in
            if channels == 2 {
                // Both sums in one loop: two chains of additions side by side, each in its order.
                var left = 0.0, right = 0.0
                for f in 0..<frames {
                    left += Double(p[2 * f].soundValue)
                    right += Double(p[2 * f + 1].soundValue)
                }
                means = [left / Double(frames), right / Double(frames)]
                return
            }
            for c in 0..<channels {
                var sum = 0.0
                for f in 0..<frames { sum += Double(p[f * channels + c].soundValue) }
                means[c] = sum / Double(frames)
            }
        }
        guard means.contains(where: { $0 != 0 }) else { return }
        samples.withUnsafeMutableBufferPointer { p in
            for c in 0..<channels {
                let mean = means[c]
                for f in 0..<frames {
                    p[f * channels + c] = Sample(soundValue: Float(Double(p[f * channels + c].soundValue) - mean))
                }
            }
        }
    }
}
