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
/// when ρ = 0, and the measured mix between. Ends in opposite phase (ρ < 0) would cancel: for
/// those the loop is first made up to `alignmentFrames` shorter, where the ends agree best (what
/// is left negative gets at most 6 dB of make-up).
public enum LoopedBed {
    /// The ends' correlation under which a seam is an unchanged equal-power crossfade: noise's.
    public static let uncorrelated = 0.1
    /// How much shorter a loop may be made so that its ends' phases agree, in frames.
    public static let alignmentFrames = 1024

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
        var loopFrames = frames - seam
        var rho = correlation(samples, channels: channels, seam: seam, loopFrames: loopFrames)
        let room = min(alignmentFrames, loopFrames - seam)
        if rho <= -uncorrelated, room > 0 {
            // Tonal ends out of phase: the loop point where they agree best, a little earlier.
            for shorter in 1...room {
                let r = correlation(samples, channels: channels, seam: seam, loopFrames: frames - seam - shorter)
                if r > rho + 1e-9 { rho = r; loopFrames = frames - seam - shorter }
            }
        }
        let adapt = abs(rho) >= uncorrelated
        // At most +6 dB of make-up, where ends still in opposite phase would cancel.
        let r = max(-0.75, min(1, rho))
        samples.withUnsafeMutableBufferPointer { p in
            for i in 0..<seam {
                let x = (Double(i) + 0.5) / Double(seam)
                let s = sin(x * .pi / 2), c = cos(x * .pi / 2)
                let norm = adapt ? 1 / (1 + 2 * r * s * c).squareRoot() : 1
                let fadeIn = Float(s * norm), fadeOut = Float(c * norm)
                for ch in 0..<channels {
                    // The head's frame is read before it is written; the tail (from loopFrames ≥
                    // seam on) never is.
                    let head = p[i * channels + ch].soundValue
                    let tail = p[(loopFrames + i) * channels + ch].soundValue
                    p[i * channels + ch] = Sample(soundValue: head * fadeIn + tail * fadeOut)
                }
            }
        }
        samples.removeLast(samples.count - loopFrames * channels)
    }

    /// The normalized correlation of the recording's first `seam` frames with the `seam` frames
    /// from `loopFrames` (the two ends the seam blends), over all channels, −1…1.
    static func correlation<Sample: SoundSample>(_ samples: [Sample], channels: Int, seam: Int, loopFrames: Int) -> Double {
        var ht = 0.0, hh = 0.0, tt = 0.0
        samples.withUnsafeBufferPointer { p in
            let tailStart = loopFrames * channels
            for k in 0..<(seam * channels) {
                let h = Double(p[k].soundValue), t = Double(p[tailStart + k].soundValue)
                ht += h * t; hh += h * h; tt += t * t
            }
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
