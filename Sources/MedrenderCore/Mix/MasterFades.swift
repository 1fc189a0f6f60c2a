/// The master fade in at the start of the file and fade out at its end.
///
/// The fade in's first gain is above 0 (a cue on frame 0 still sounds); the fade out's last gain
/// is exactly 0 (the file ends in silence).
public struct MasterFades: Sendable {
    public let totalFrames: Int64
    public let fadeInFrames: Int64
    public let fadeOutFrames: Int64
    public let curve: FadeCurve

    public init(plan: RenderPlan) {
        totalFrames = plan.totalFrames
        fadeInFrames = min(plan.master.fadeInFrames, plan.totalFrames)
        fadeOutFrames = min(plan.master.fadeOutFrames, plan.totalFrames)
        curve = plan.master.fadeCurve
    }

    /// The gain of frame `frame`.
    public func gain(at frame: Int64) -> Float {
        var fadeIn = FadeRun(curve, over: fadeInFrames, step: 1), fadeOut = FadeRun(curve, over: fadeOutFrames, step: -1)
        return gain(at: frame, fadeIn: &fadeIn, fadeOut: &fadeOut)
    }

    /// The gain of frame `frame`, the fades followed by `fadeIn` and `fadeOut` (runs over
    /// consecutive frames give each frame's gain without working out its curve afresh).
    @inline(__always)
    private func gain(at frame: Int64, fadeIn: inout FadeRun, fadeOut: inout FadeRun) -> Float {
        var g: Float = 1
        if frame < fadeInFrames { g *= fadeIn.value(at: Double(frame + 1)) }
        let fromEnd = totalFrames - 1 - frame
        if fromEnd < fadeOutFrames { g *= fromEnd < 0 ? 0 : fadeOut.value(at: Double(fromEnd)) }
        return g
    }

    /// Applies the fades to `frameCount` interleaved frames that start at `startFrame`.
    public func apply(_ buffer: UnsafeMutablePointer<Float>, channels: Int, startFrame: Int64, frameCount: Int) {
        let end = startFrame + Int64(frameCount)
        guard startFrame < fadeInFrames || end > totalFrames - fadeOutFrames else { return }
        var fadeIn = FadeRun(curve, over: fadeInFrames, step: 1), fadeOut = FadeRun(curve, over: fadeOutFrames, step: -1)
        for f in 0..<frameCount {
            let frame = startFrame + Int64(f)
            if frame >= fadeInFrames && frame < totalFrames - fadeOutFrames { continue }
            let g = gain(at: frame, fadeIn: &fadeIn, fadeOut: &fadeOut)
            for c in 0..<channels { buffer[f * channels + c] *= g }
        }
    }
}
