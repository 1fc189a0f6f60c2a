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
        let loopFrames = frames - seam
        var out = Array(asset.samples[0..<(loopFrames * channels)])
        for i in 0..<seam {
            let x = (Double(i) + 0.5) / Double(seam)
            let fadeIn = Float(sin(x * .pi / 2)), fadeOut = Float(cos(x * .pi / 2))
            for c in 0..<channels {
                let head = asset.samples[i * channels + c]
                let tail = asset.samples[(loopFrames + i) * channels + c]
                out[i * channels + c] = head * fadeIn + tail * fadeOut
            }
        }
        return AudioAsset(channels: channels, samples: out)
    }
}
