extension AudioAsset {
    /// The asset with each channel's mean taken out: a sound's DC offset, which would otherwise
    /// sit under the whole mix (and click at every fade), removed once when it is loaded.
    public func withoutDCOffset() -> AudioAsset {
        guard frameCount > 0 else { return self }
        var means = [Double](repeating: 0, count: channels)
        for (i, x) in samples.enumerated() { means[i % channels] += Double(x) }
        for c in 0..<channels { means[c] /= Double(frameCount) }
        guard means.contains(where: { $0 != 0 }) else { return self }
        var out = samples
        for i in out.indices { out[i] = Float(Double(out[i]) - means[i % channels]) }
        return AudioAsset(channels: channels, samples: out)
    }

    /// The asset as it plays in a mono output: a stereo sound folded to (L + R) / 2, a mono one
    /// as it is.
    public func foldedToMono() -> AudioAsset {
        guard channels == 2 else { return self }
        var out = [Float](repeating: 0, count: frameCount)
        for f in 0..<frameCount { out[f] = (samples[2 * f] + samples[2 * f + 1]) * 0.5 }
        return AudioAsset(channels: 1, samples: out)
    }
}
