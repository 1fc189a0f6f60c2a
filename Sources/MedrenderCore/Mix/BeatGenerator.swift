import Foundation

/// Renders a `BeatPlan`: each frame's tones from the phases of the plan's curves at that frame,
/// worked out in closed form, so a generator started at any frame renders what one started at 0
/// renders from there (its cursors only hold the figures of the current slide).
final class BeatGenerator {
    let plan: BeatPlan
    let channels: Int
    private var carrier: PhaseCursor
    private var halfBeat: PhaseCursor
    private var gainSegment = 0
    private var next: Int64 = -1
    /// The last gain worked out, and the decibels it came from: a level gain is computed once.
    private var lastDecibels = Double.nan
    private var lastGain = 0.0

    init(_ plan: BeatPlan, channels: Int) {
        self.plan = plan
        self.channels = channels
        carrier = PhaseCursor(plan.carrier)
        halfBeat = PhaseCursor(plan.halfBeat)
    }

    /// Moves `segment` on to the slide of `curve` that holds `frame`.
    @inline(__always)
    private static func seek(_ segment: inout Int, _ curve: PiecewiseCurve, _ frame: Int64) {
        while segment + 1 < curve.frames.count, curve.frames[segment + 1] <= frame { segment += 1 }
    }

    /// Adds frames `blockStart ..< blockStart + frameCount` of the beats to `out` (interleaved).
    func render(into out: UnsafeMutablePointer<Float>, blockStart: Int64, frameCount: Int) {
        if blockStart != next {
            gainSegment = plan.gainDecibels.segment(containing: blockStart)
        }
        next = blockStart + Int64(frameCount)
        // The cursors and the last gain in locals through the loop: stored properties of a class,
        // written every frame, would each be checked for exclusive access every frame.
        var carrier = self.carrier, halfBeat = self.halfBeat
        var lastDecibels = self.lastDecibels, lastGain = self.lastGain, gainSegment = self.gainSegment
        defer {
            self.carrier = carrier; self.halfBeat = halfBeat; self.gainSegment = gainSegment
            self.lastDecibels = lastDecibels; self.lastGain = lastGain
        }
        let total = plan.totalFrames
        let fadeOutStart = total - plan.fadeOutFrames
        for f in 0..<frameCount {
            let frame = blockStart + Int64(f)
            guard frame < total else { break }
            Self.seek(&gainSegment, plan.gainDecibels, frame)
            let carrierPhase = carrier.phase(at: frame)
            let halfBeatPhase = halfBeat.phase(at: frame)
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
                let left = Sine.cycles(carrierPhase - halfBeatPhase)
                let right = Sine.cycles(carrierPhase + halfBeatPhase)
                out[o] += Float(left * gain)
                if channels > 1 { out[o + 1] += Float(right * gain) }
            case .monaural:
                let v = Float(0.5 * (Sine.cycles(carrierPhase - halfBeatPhase) + Sine.cycles(carrierPhase + halfBeatPhase)) * gain)
                for c in 0..<channels { out[o + c] += v }
            case .isochronic:
                let beatPhase = (2 * halfBeatPhase).truncatingRemainder(dividingBy: 1)
                let v = Float(Sine.cycles(carrierPhase) * Beats.isochronicPulse(beatPhase) * gain)
                for c in 0..<channels { out[o + c] += v }
            }
        }
    }
}
