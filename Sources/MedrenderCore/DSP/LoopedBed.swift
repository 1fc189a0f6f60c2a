import Foundation

/// An ambience loop with an equal-power crossfade baked into its seam, so it repeats seamlessly.
///
/// From a recording of `n` frames and a seam of `s` frames, the loop is `n − s` frames long: its
/// first `s` frames blend the recording's tail (fading out) into its head (fading in), so the jump
/// from the loop's last frame back to its first continues the recording where it left off.
public enum LoopedBed {
    /// Bakes the seam into `asset`. A seam longer than half the recording is shortened to half.
    public static func bake(_ asset: AudioAsset, seamFrames requested: Int) -> AudioAsset {
        let frames = asset.frameCount
        let channels = asset.channels
        let seam = min(max(0, requested), frames / 2)
        guard seam > 0 else { return asset }
        var out = asset.samples
        bake(&out, channels: channels, seamFrames: seam)
        return AudioAsset(channels: channels, samples: out)
    }

    /// Bakes the seam into `samples` (interleaved, `channels` of them) in place: the sound's last
    /// `seamFrames` fade into its first, and are then dropped. The same samples as
    /// `bake(_:seamFrames:)`, without a second copy of a long bed.
    public static func bake(_ samples: inout [Float], channels: Int, seamFrames requested: Int) {
        let frames = samples.count / channels
        let seam = min(max(0, requested), frames / 2)
        guard seam > 0 else { return }
        let loopFrames = frames - seam
        samples.withUnsafeMutableBufferPointer { p in
            for i in 0..<seam {
                let x = (Double(i) + 0.5) / Double(seam)
                let fadeIn = Float(sin(x * .pi / 2)), fadeOut = Float(cos(x * .pi / 2))
                for c in 0..<channels {
                    // The head's frame is read before it is written; the tail (from loopFrames on) never is.
                    let head = p[i * channels + c]
                    let tail = p[(loopFrames + i) * channels + c]
                    p[i * channels + c] = head * fadeIn + tail * fadeOut
                }
            }
        }
        samples.removeLast(seam * channels)
    }
}
