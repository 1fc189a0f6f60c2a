import Foundation

/// Synthesizes cue tones: short, soft, and shaped so that nothing clicks.
///
/// Every partial starts in cosine phase under a raised-cosine attack, so the first sample of a tone
/// is positive, never 0; the last sample is exactly 0.
public enum ToneSynth {
    struct Partial {
        var ratio: Double
        var amplitude: Double
        /// Time for the partial to fall by 60 dB, in seconds.
        var decaySeconds: Double
    }

    /// Frames between two exact evaluations of a partial's phase.
    static let anchor = 1024

    /// The partials of a tone of `timbre` lasting `lengthSeconds` (a pure tone rings for twice its length).
    static func partials(for timbre: CueTimbre, lengthSeconds: Double) -> [Partial] {
        // A row per partial: its frequency's ratio to the pitch, its amplitude, its decay in seconds.
        let rows: [(ratio: Double, amplitude: Double, decaySeconds: Double)]
        switch timbre {
        case .pure: rows = [(1, 1, max(lengthSeconds * 2, 0.05))]
        case .bell: rows = [(1, 1, 1.6), (2.76, 0.42, 0.9), (5.40, 0.18, 0.5), (8.93, 0.07, 0.3)]
        case .bowl: rows = [(1, 1, 4), (1.006, 0.6, 4), (2.71, 0.35, 2.5), (5.1, 0.12, 1.2)]
        case .tick: rows = [(1, 1, 0.12), (2.3, 0.5, 0.07), (3.9, 0.3, 0.05)]
        }
        return rows.map { Partial(ratio: $0.ratio, amplitude: $0.amplitude, decaySeconds: $0.decaySeconds) }
    }

    /// A mono tone of `frameCount` frames at `rate`, peak-normalized to 1.
    ///
    /// - Parameters:
    ///   - timbre: the cue's timbre.
    ///   - pitchHertz: the fundamental in hertz, 50…4000; partials above 0.45 × `rate` are dropped.
    public static func tone(timbre: CueTimbre, pitchHertz: Double, frameCount: Int, rate: Int) -> AudioAsset {
        guard frameCount > 0 else { return AudioAsset(channels: 1, samples: []) }
        let attack = min(max(1, rate / 200), frameCount / 4)  // 5 ms, or a quarter of a short tone
        let release = min(max(1, rate / 50), frameCount / 2)  // 20 ms
        let nyquistGuard = 0.45 * Double(rate)
        let lengthSeconds = Double(frameCount) / Double(rate)
        let parts = partials(for: timbre, lengthSeconds: lengthSeconds).filter { pitchHertz * $0.ratio < nyquistGuard }
        var samples = [Float](repeating: 0, count: frameCount)
        for part in parts.isEmpty ? [Partial(ratio: 1, amplitude: 1, decaySeconds: 1)] : parts {
            let omega = 2 * Double.pi * min(pitchHertz * part.ratio, nyquistGuard) / Double(rate)
            // exp(-6.9 t / T60) falls by 60 dB over T60.
            let decayPerFrame = exp(-6.907755 / (part.decaySeconds * Double(rate)))
            var envelope = part.amplitude
            // cos(omega n) by rotation, one complex multiply a frame instead of a cosine, taken
            // afresh from cos and sin every `anchor` frames so rounding never builds up (it stays
            // within a few units of 1e-16, far under a Float's resolution).
            let (stepCos, stepSin) = (cos(omega), sin(omega))
            samples.withUnsafeMutableBufferPointer { out in
                var n = 0
                while n < frameCount {
                    var c = cos(omega * Double(n)), s = sin(omega * Double(n))
                    for k in n..<min(frameCount, n + Self.anchor) {
                        out[k] += Float(envelope * c)
                        envelope *= decayPerFrame
                        (c, s) = (c * stepCos - s * stepSin, s * stepCos + c * stepSin)
                    }
                    n += Self.anchor
                }
            }
        }
        let peak = samples.reduce(0) { max($0, abs($1)) }
        let scale = peak > 0 ? 1 / peak : 1
        for n in 0..<frameCount {
            var gain = scale * Ramp.attack(n, length: attack)
            let fromEnd = n - (frameCount - release)
            if fromEnd >= 0 { gain *= Ramp.release(fromEnd, length: release) }
            samples[n] *= gain
        }
        return AudioAsset(channels: 1, samples: samples)
    }
}
