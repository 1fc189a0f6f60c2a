import Foundation

/// An ambience loop with a crossfade baked into its seam, so it repeats seamlessly.
///
/// From a recording of `n` frames and a seam of `s` frames, the loop is `n − s` frames long: its
/// first `s` frames blend the recording's tail (fading out) into its head (fading in), so the jump
/// from the loop's last frame back to its first continues the recording where it left off.
///
/// The crossfade's shape follows how alike the two ends are. Two ends that do not correlate (rain,
/// surf: noise) add in power, and an equal-power crossfade keeps their level; two that do (a
/// drone, a held tone) add in amplitude, and the same crossfade would swell them by up to 3 dB at
/// its middle. So the seam measures the ends' correlation ρ and divides the equal-power gains
/// (sin, cos) by √(1 + 2ρ·sin·cos), the level their sum has: equal gain when ρ = 1, equal power
/// when ρ = 0, and the measured mix between.
///
/// Tonal ends rarely agree all through the seam at the recording's own length: a partial in
/// opposite phase at the two ends cancels at the seam's middle (an inharmonic pair lost one
/// partial by 27.6 dB while the other rose 3 dB), and a drone's vibrato drifts in and out of phase
/// across it (it swelled and dipped by +2.3/−4.5 dB). So unless the ends already agree in shape,
/// the loop is first made up to `alignmentFrames` shorter, where they agree best; and such a tonal
/// seam then follows the envelope: over every few milliseconds, the blend is brought to the level the
/// two ends have there, weighted by the crossfade (at most 12 dB either way). Noise keeps the
/// plain equal-power crossfade at its own length, sample for sample.
public enum LoopedBed {
    /// The ends' correlation under which a seam is an unchanged equal-power crossfade: noise's.
    public static let uncorrelated = 0.1
    /// How much shorter a loop may be made so that its ends' phases agree, in frames: 4096, 85 ms
    /// at 48 kHz, a cycle of any tone above 12 Hz there.
    public static let alignmentFrames = 4096
    /// How much of the seam's middle the search for that length compares, in frames.
    static let alignmentBlockFrames = 4096
    /// Ends that already agree this well in shape (correlated with their means removed) keep the
    /// recording's length.
    static let agreeing = 0.95
    /// The most a tonal seam's envelope is corrected either way, as a gain: 12 dB.
    static let envelopeLimit = 4.0

    /// Bakes the seam into `asset`. A seam longer than half the recording is shortened to half.
    public static func bake(_ asset: AudioAsset, seamFrames requested: Int) -> AudioAsset {
        var out = asset.samples
        bake(&out, channels: asset.channels, seamFrames: requested)
        return AudioAsset(channels: asset.channels, samples: out)
    }

    /// Bakes the seam into `samples` (interleaved, `channels` of them) in place: the sound's tail
    /// fades into its first `seamFrames`, and what follows the loop is dropped. The same samples
    /// as `bake(_:seamFrames:)`, without a second copy of a long bed.
    /// A bed held in 16 bits (`Int16.heldStep`) is baked so too, each blended frame rounded again.
    public static func bake<Sample: SoundSample>(_ samples: inout [Sample], channels: Int, seamFrames requested: Int) {
        let frames = samples.count / channels
        let seam = min(max(0, requested), frames / 2)
        guard seam > 0 else { return }
        let (loopFrames, rho, agrees) = loopLength(samples, channels: channels, seam: seam)
        var gains = crossfade(seam: seam, rho: rho)
        if abs(rho) >= uncorrelated, !agrees {
            followEnvelope(samples, channels: channels, seam: seam, loopFrames: loopFrames, gains: &gains)
        }
        samples.withUnsafeMutableBufferPointer { p in
            for i in 0..<seam {
                for ch in 0..<channels {
                    // The head's frame is read before it is written; the tail (from loopFrames ≥
                    // seam on) never is.
                    let head = p[i * channels + ch].soundValue
                    let tail = p[(loopFrames + i) * channels + ch].soundValue
                    p[i * channels + ch] = Sample(soundValue: head * gains.fadeIn[i] + tail * gains.fadeOut[i])
                }
            }
        }
        samples.removeLast(samples.count - loopFrames * channels)
    }

    /// The loop's length in frames, its ends' correlation there, and whether they already agree
    /// in shape at the recording's length (a held tone in phase, a ramp): the recording's length
    /// less the seam, or up to `alignmentFrames` shorter where tonal ends agree better (noise's
    /// ends agree nowhere, and keep the recording's length).
    static func loopLength<Sample: SoundSample>(_ samples: [Sample], channels: Int, seam: Int) -> (frames: Int, rho: Double, agrees: Bool) {
        let natural = samples.count / channels - seam
        let rho = correlation(samples, channels: channels, seam: seam, loopFrames: natural)
        guard correlation(samples, channels: channels, seam: seam, loopFrames: natural, centred: true) < agreeing else {
            return (natural, rho, true)
        }
        let room = min(alignmentFrames, natural - seam)
        guard room > 0 else { return (natural, rho, false) }
        let frames = natural - bestShortening(samples, channels: channels, seam: seam, natural: natural, room: room)
        let r = correlation(samples, channels: channels, seam: seam, loopFrames: frames)
        // Ends out of phase take any better length; others one where they are tonal at all.
        let better = r > rho + 1e-9 && (r >= uncorrelated || rho <= -uncorrelated)
        return better ? (frames, r, false) : (natural, rho, false)
    }

    /// How many frames shorter, 0…`room`, the loop's ends agree best: the middle of the seam's head
    /// (up to `alignmentBlockFrames`) against the tail at each length, by normalized correlation.
    static func bestShortening<Sample: SoundSample>(_ samples: [Sample], channels: Int, seam: Int, natural: Int, room: Int) -> Int {
        let block = min(seam, alignmentBlockFrames), offset = (seam - block) / 2
        let n = block * channels
        let head = (0..<n).map { Double(samples[offset * channels + $0].soundValue) }
        // The tail's frames at every length compared: shortened by `room` first, by 0 last.
        let from = (natural - room + offset) * channels
        let tail = (0..<(n + room * channels)).map { Double(samples[from + $0].soundValue) }
        let hh = head.reduce(0) { $0 + $1 * $1 }
        var tt = tail[0..<n].reduce(0) { $0 + $1 * $1 }
        var best = (shorter: 0, r: -Double.infinity)
        head.withUnsafeBufferPointer { h in
            tail.withUnsafeBufferPointer { t in
                for step in 0...room {
                    let start = step * channels
                    if step > 0 {
                        for k in 0..<channels {
                            tt += t[start + n - channels + k] * t[start + n - channels + k] - t[start - channels + k] * t[start - channels + k]
                        }
                    }
                    var ht = 0.0
                    for j in 0..<n { ht += h[j] * t[start + j] }
                    let r = hh > 0 && tt > 0 ? ht / (hh * tt).squareRoot() : 0
                    if r > best.r { best = (room - step, r) }
                }
            }
        }
        return best.shorter
    }

    /// The seam's gains, head fading in and tail fading out: equal power for uncorrelated ends,
    /// divided by the level their sum has for correlated ones (at most +6 dB of make-up where
    /// ends in opposite phase would cancel).
    static func crossfade(seam: Int, rho: Double) -> (fadeIn: [Float], fadeOut: [Float]) {
        let adapt = abs(rho) >= uncorrelated
        let r = max(-0.75, min(1, rho))
        var fadeIn = [Float](repeating: 0, count: seam), fadeOut = fadeIn
        for i in 0..<seam {
            let x = (Double(i) + 0.5) / Double(seam)
            let s = sin(x * .pi / 2), c = cos(x * .pi / 2)
            let norm = adapt ? 1 / (1 + 2 * r * s * c).squareRoot() : 1
            fadeIn[i] = Float(s * norm)
            fadeOut[i] = Float(c * norm)
        }
        return (fadeIn, fadeOut)
    }

    /// Brings a tonal seam's blend to the envelope its ends have: the power of the head, of the
    /// tail and of their blend, each smoothed over a 300th of the seam (10 ms of a 3-s seam, at
    /// least 48 frames) forwards and back, and the blend's gains scaled at every frame by
    /// √((sin²·head + cos²·tail) / blend), within `envelopeLimit` either way.
    static func followEnvelope<Sample: SoundSample>(_ samples: [Sample], channels: Int, seam: Int, loopFrames: Int,
                                                    gains: inout (fadeIn: [Float], fadeOut: [Float])) {
        var head = [Double](repeating: 0, count: seam), tail = head, blend = head
        samples.withUnsafeBufferPointer { p in
            for i in 0..<seam {
                for ch in 0..<channels {
                    let h = Double(p[i * channels + ch].soundValue), t = Double(p[(loopFrames + i) * channels + ch].soundValue)
                    let b = h * Double(gains.fadeIn[i]) + t * Double(gains.fadeOut[i])
                    head[i] += h * h; tail[i] += t * t; blend[i] += b * b
                }
            }
        }
        let frames = max(48.0, Double(seam) / 300)
        smooth(&head, timeConstantFrames: frames)
        smooth(&tail, timeConstantFrames: frames)
        smooth(&blend, timeConstantFrames: frames)
        for i in 0..<seam {
            let x = (Double(i) + 0.5) / Double(seam)
            let s = sin(x * .pi / 2), c = cos(x * .pi / 2)
            let target = s * s * head[i] + c * c * tail[i]
            let g = blend[i] > 0 ? min(envelopeLimit, max(1 / envelopeLimit, (target / blend[i]).squareRoot())) : 1
            gains.fadeIn[i] *= Float(g)
            gains.fadeOut[i] *= Float(g)
        }
    }

    /// Smooths `x` in place by a one-pole low-pass run forwards, then back (no delay).
    static func smooth(_ x: inout [Double], timeConstantFrames: Double) {
        let a = exp(-1 / timeConstantFrames)
        guard var y = x.first else { return }
        for i in x.indices { y = x[i] + a * (y - x[i]); x[i] = y }
        for i in x.indices.reversed() { y = x[i] + a * (y - x[i]); x[i] = y }
    }

    /// The normalized correlation of the recording's first `seam` frames with the `seam` frames
    /// from `loopFrames` (the two ends the seam blends), over all channels, −1…1; `centred`, of
    /// the two with their means removed (how alike their shapes are: a ramp's ends agree).
    static func correlation<Sample: SoundSample>(_ samples: [Sample], channels: Int, seam: Int, loopFrames: Int,
                                                 centred: Bool = false) -> Double {
        var ht = 0.0, hh = 0.0, tt = 0.0, hs = 0.0, ts = 0.0
        let n = seam * channels
        samples.withUnsafeBufferPointer { p in
            let tailStart = loopFrames * channels
            for k in 0..<n {
                let h = Double(p[k].soundValue), t = Double(p[tailStart + k].soundValue)
                ht += h * t; hh += h * h; tt += t * t; hs += h; ts += t
            }
        }
        if centred {
            ht -= hs * ts / Double(n); hh -= hs * hs / Double(n); tt -= ts * ts / Double(n)
        }
        return hh > 0 && tt > 0 ? ht / (hh * tt).squareRoot() : 0
    }
}

/// A sample of a sound as loaded: a float, or 16 bits held at `Int16.heldStep` (a bed's, and the
/// audio a pieced OGG hands its encoders).
public protocol SoundSample {
    var soundValue: Float { get }
    init(soundValue: Float)
}

// Inlinable: the pieced encoder's analyses (another module) take every sample of a render so.
extension Float: SoundSample {
    @inlinable @inline(__always) public var soundValue: Float { self }
    @inlinable @inline(__always) public init(soundValue: Float) { self = soundValue }
}

extension Int16: SoundSample {
    @inlinable @inline(__always) public var soundValue: Float { heldValue }
    @inlinable @inline(__always) public init(soundValue: Float) { self.init(held: soundValue) }
}
