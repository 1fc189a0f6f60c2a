import Foundation

/// Renders a `BeatPlan`: the tones' phases worked out in closed form from the plan's curves at
/// the start of every run of `runFrames` frames (on a grid of the session's frames) and turned a
/// frame at a time in between, so a generator started at any frame renders what one started at
/// 0 renders from there, to within a millionth of a cycle (its cursors only hold the figures of
/// the current slide).
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

    /// Frames between two tones' phases worked out in closed form: in between, each tone turns by
    /// its frequency at the run's middle frame (a rotation, a complex multiply a frame). A slide
    /// moves the frequency within a run by so little that the phase strays under 10⁻⁶ of a cycle
    /// (`follow: breath`, the fastest; 10⁻⁸ for a timeline's slides) before the next run starts
    /// from the exact phase again.
    static let runFrames = 32

    /// A tone turned a frame at a time: its sine and cosine, and a frame's turn.
    struct Rotor {
        var sine: Double, cosine: Double
        let stepSine: Double, stepCosine: Double

        /// A tone at `phase` cycles turning `cyclesPerFrame` each frame.
        @inline(__always)
        init(phase: Double, cyclesPerFrame: Double) {
            sine = Sine.cycles(phase)
            cosine = Sine.cycles(phase + 0.25)
            stepSine = Sine.cycles(cyclesPerFrame)
            stepCosine = Sine.cycles(cyclesPerFrame + 0.25)
        }

        @inline(__always)
        mutating func turn() {
            let s = sine * stepCosine + cosine * stepSine
            cosine = cosine * stepCosine - sine * stepSine
            sine = s
        }
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
        let rate = Double(plan.carrier.rate)
        let turnsHigh = plan.kind != .isochronic
        let frames = Int(max(0, min(Int64(frameCount), total - blockStart)))
        var runStart = 0
        while runStart < frames {
            // Runs on a grid of the session's frames, whatever frame the block starts on, so that
            // every render of a frame turns its tones from the same anchor.
            let here = blockStart + Int64(runStart)
            let skip = Int(here % Int64(Self.runFrames))
            let first = here - Int64(skip), middle = first + Int64(Self.runFrames / 2)
            let n = min(Self.runFrames - skip, frames - runStart)
            let carrierPhase = carrier.phase(at: first), halfBeatPhase = halfBeat.phase(at: first)
            let carrierStep = carrier.value(at: middle) / rate, halfBeatStep = halfBeat.value(at: middle) / rate
            // binaural and monaural: the low tone (carrier − half the beat) and the high one;
            // isochronic: the carrier alone (in `low`), gated at the beat.
            var low = plan.kind == .isochronic ? Rotor(phase: carrierPhase, cyclesPerFrame: carrierStep)
                : Rotor(phase: carrierPhase - halfBeatPhase, cyclesPerFrame: carrierStep - halfBeatStep)
            var high = Rotor(phase: carrierPhase + halfBeatPhase, cyclesPerFrame: carrierStep + halfBeatStep)
            for _ in 0..<skip {
                low.turn()
                if turnsHigh { high.turn() }
            }
            for f in runStart..<(runStart + n) {
                let frame = blockStart + Int64(f)
                Self.seek(&gainSegment, plan.gainDecibels, frame)
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
                    out[o] += Float(low.sine * gain)
                    if channels > 1 { out[o + 1] += Float(high.sine * gain) }
                case .monaural:
                    let v = Float(0.5 * (low.sine + high.sine) * gain)
                    for c in 0..<channels { out[o + c] += v }
                case .isochronic:
                    let beatPhase = (2 * halfBeat.phase(at: frame)).truncatingRemainder(dividingBy: 1)
                    let v = Float(low.sine * Beats.isochronicPulse(beatPhase) * gain)
                    for c in 0..<channels { out[o + c] += v }
                }
                low.turn()
                if turnsHigh { high.turn() }  // isochronic beats play one tone
            }
            runStart += n
        }
    }
}
