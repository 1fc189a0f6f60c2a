import Foundation

/// Renders a `BeatPlan`: each frame's tones from the phases of the plan's curves at that frame,
/// worked out in closed form, so a generator started at any frame renders what one started at 0
/// renders from there (its cursors only speed up the search for the current slide).
final class BeatGenerator {
    let plan: BeatPlan
    let channels: Int
    private var carrierSegment = 0
    private var beatSegment = 0
    private var gainSegment = 0
    private var next: Int64 = -1
    /// The last gain worked out, and the decibels it came from: a level gain is computed once.
    private var lastDecibels = Double.nan
    private var lastGain = 0.0

    init(_ plan: BeatPlan, channels: Int) {
        self.plan = plan
        self.channels = channels
    }

    /// Moves `segment` on to the slide of `curve` that holds `frame`.
    @inline(__always)
    private static func seek(_ segment: inout Int, _ curve: PiecewiseCurve, _ frame: Int64) {
        while segment + 1 < curve.frames.count, curve.frames[segment + 1] <= frame { segment += 1 }
    }

    /// Adds frames `blockStart ..< blockStart + frameCount` of the beats to `out` (interleaved).
    func render(into out: UnsafeMutablePointer<Float>, blockStart: Int64, frameCount: Int) {
        if blockStart != next {
            carrierSegment = plan.carrier.segment(containing: blockStart)
            beatSegment = plan.halfBeat.segment(containing: blockStart)
            gainSegment = plan.gainDecibels.segment(containing: blockStart)
        }
        next = blockStart + Int64(frameCount)
        let total = plan.totalFrames
        let fadeOutStart = total - plan.fadeOutFrames
        for f in 0..<frameCount {
            let frame = blockStart + Int64(f)
            guard frame < total else { break }
            Self.seek(&carrierSegment, plan.carrier, frame)
            Self.seek(&beatSegment, plan.halfBeat, frame)
            Self.seek(&gainSegment, plan.gainDecibels, frame)
            let carrierPhase = plan.carrier.phase(at: frame, segment: carrierSegment)
            let halfBeatPhase = plan.halfBeat.phase(at: frame, segment: beatSegment)
            let decibels = plan.gainDecibels.value(at: frame, segment: gainSegment)
            if decibels != lastDecibels {
                lastDecibels = decibels
                lastGain = pow(10, decibels / 20)
            }
            var gain = lastGain
            if frame < plan.fadeInFrames {
                gain *= FadeCurve.halfCosine.value(at: (Double(frame) + 0.5) / Double(plan.fadeInFrames))
            }
            if frame >= fadeOutStart {
                gain *= FadeCurve.halfCosine.value(at: (Double(total - frame) - 0.5) / Double(plan.fadeOutFrames))
            }
            let o = f * channels
            switch plan.kind {
            case .binaural:
                let left = sin(2 * .pi * (carrierPhase - halfBeatPhase))
                let right = sin(2 * .pi * (carrierPhase + halfBeatPhase))
                out[o] += Float(left * gain)
                if channels > 1 { out[o + 1] += Float(right * gain) }
            case .monaural:
                let v = Float(0.5 * (sin(2 * .pi * (carrierPhase - halfBeatPhase)) + sin(2 * .pi * (carrierPhase + halfBeatPhase))) * gain)
                for c in 0..<channels { out[o + c] += v }
            case .isochronic:
                let beatPhase = (2 * halfBeatPhase).truncatingRemainder(dividingBy: 1)
                let v = Float(sin(2 * .pi * carrierPhase) * Beats.isochronicPulse(beatPhase) * gain)
                for c in 0..<channels { out[o + c] += v }
            }
        }
    }
}
