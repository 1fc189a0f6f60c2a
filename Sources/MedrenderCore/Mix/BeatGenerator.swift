import Foundation

/// Renders a `BeatPlan`: the tones' phases worked out in closed form from the plan's curves at
/// the start of every run of `runFrames` frames (on a grid of the session's frames) and turned a
/// frame at a time in between (to within 8·10⁻⁵ of a cycle of the exact phase), so a generator
/// started at any frame renders what one started at 0 renders from there (its cursors only hold
/// the figures of the current slide).
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

    /// Whether a run is under half a cycle of the fastest beat the plan reaches, so that the
    /// phases at its two ends say whether it wraps (`steadyPulse`): 40 Hz at 8 kHz is 1.28 cycles.
    private let runsUnderHalfABeat: Bool

    init(_ plan: BeatPlan, channels: Int) {
        self.plan = plan
        self.channels = channels
        runsUnderHalfABeat = 2 * (plan.halfBeat.values.max() ?? 0) * Double(Self.runFrames) < 0.5 * Double(plan.halfBeat.rate)
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
    /// moves the frequency within a run by so little that the phase strays under 8·10⁻⁵ of a cycle
    /// (`follow: breath`, the fastest; 8·10⁻⁷ for a timeline's slides: the stray grows as the
    /// square of the run, and was under 10⁻⁶ at 32 frames) before the next run starts from the
    /// exact phase again. 256 frames: the closed form (on a slide, an integral of the curve, its
    /// value and eight sines) was most of a beat's cost at 32, and a third of it at 128.
    static let runFrames = 256

    /// A tone turned a frame at a time: its sine and cosine, and a frame's turn.
    struct Rotor {
        var sine: Double, cosine: Double
        let stepSine: Double, stepCosine: Double

        /// A tone at `phase` cycles turning by `step` each frame.
        @inline(__always)
        init(phase: Double, step: Step) {
            sine = Sine.cycles(phase)
            cosine = Sine.cycles(phase + 0.25)
            stepSine = step.sine
            stepCosine = step.cosine
        }

        /// A frame's turn: the sine and cosine of `cyclesPerFrame`.
        struct Step {
            let cyclesPerFrame: Double, sine: Double, cosine: Double

            @inline(__always)
            init(_ cyclesPerFrame: Double) {
                self.cyclesPerFrame = cyclesPerFrame
                sine = Sine.cycles(cyclesPerFrame)
                cosine = Sine.cycles(cyclesPerFrame + 0.25)
            }

            /// This step if it turns by `cycles`, or a new one (a level stretch turns by the
            /// same figure run after run: its sine and cosine are worked out once).
            @inline(__always)
            func reused(for cycles: Double) -> Step { cycles == cyclesPerFrame ? self : Step(cycles) }
        }

        @inline(__always)
        mutating func turn() {
            let s = sine * stepCosine + cosine * stepSine
            cosine = cosine * stepCosine - sine * stepSine
            sine = s
        }
    }

    /// Both tones of a binaural or monaural beat turned side by side, the two lanes of one
    /// vector: each lane does what `Rotor.turn` does, so the samples are the same to the bit.
    struct RotorPair {
        var sine: SIMD2<Double>, cosine: SIMD2<Double>
        let stepSine: SIMD2<Double>, stepCosine: SIMD2<Double>

        @inline(__always)
        init(_ low: Rotor, _ high: Rotor) {
            sine = SIMD2(low.sine, high.sine)
            cosine = SIMD2(low.cosine, high.cosine)
            stepSine = SIMD2(low.stepSine, high.stepSine)
            stepCosine = SIMD2(low.stepCosine, high.stepCosine)
        }

        @inline(__always)
        mutating func turn() {
            let s = sine * stepCosine + cosine * stepSine
            cosine = cosine * stepCosine - sine * stepSine
            sine = s
        }

        /// Adds this frame of the beat at `gain` to the output frame at `o`, as the frame-by-frame
        /// loop does (a lane's product rounded to a float, then added).
        @inline(__always)
        func add(to out: UnsafeMutablePointer<Float>, _ o: Int, channels: Int, binaural: Bool, gain: Double) {
            if binaural, channels == 2 {
                let at = UnsafeMutableRawPointer(out + o)
                at.storeBytes(of: at.loadUnaligned(as: SIMD2<Float>.self) + SIMD2<Float>(sine * gain), as: SIMD2<Float>.self)
            } else if binaural {
                out[o] += Float(sine[0] * gain)
            } else {
                let v = Float(0.5 * (sine[0] + sine[1]) * gain)
                for c in 0..<channels { out[o + c] += v }
            }
        }
    }

    /// The gain of frames `first...last` when it is one gain (a level stretch of the gain, clear
    /// of the fades), worked out as the frame-by-frame loop would; nil otherwise.
    @inline(__always)
    private static func levelGain(_ plan: BeatPlan, first: Int64, last: Int64, fadeOutStart: Int64, gainSegment: inout Int,
                                  lastDecibels: inout Double, lastGain: inout Double) -> Double? {
        guard first >= plan.fadeInFrames, last < fadeOutStart else { return nil }
        seek(&gainSegment, plan.gainDecibels, first)
        guard plan.gainDecibels.isLevel(from: first, through: last, segment: gainSegment) else { return nil }
        let decibels = plan.gainDecibels.value(at: first, segment: gainSegment)
        if decibels != lastDecibels {
            lastDecibels = decibels
            lastGain = pow(10, decibels / 20)
        }
        return lastGain
    }

    /// An isochronic beat's phase at `frame`, in cycles: twice its half beat's.
    @inline(__always)
    private static func beatPhase(_ halfBeat: inout PhaseCursor, at frame: Int64) -> Double {
        (2 * halfBeat.phase(at: frame)).truncatingRemainder(dividingBy: 1)
    }

    /// The isochronic pulse's level through frames `first...last` when it holds one level there
    /// (1 on the pulse's top, 0 in its rest), else nil. The phase only rises, by under half a
    /// cycle over a run (`runsUnderHalfABeat`), so a stretch whose two ends sit in one flat part
    /// of the pulse, in that order and clear of its edges by far more than a phase's rounding, is
    /// flat throughout: each frame's level is the one `isochronicPulse` gives it.
    private static func steadyPulse(_ halfBeat: inout PhaseCursor, from first: Int64, through last: Int64) -> Double? {
        let margin = 1e-6, e = Beats.isochronicEdge
        let start = beatPhase(&halfBeat, at: first), end = beatPhase(&halfBeat, at: last)
        guard end >= start else { return nil }
        if start >= e + margin, end <= 0.5 - e - margin { return 1 }
        if start >= 0.5 + margin, end <= 1 - margin { return 0 }
        return nil
    }

    /// The gain at `frame`: the gain curve's level, in and out of the fades.
    @inline(__always)
    private static func gain(_ plan: BeatPlan, at frame: Int64, fadeOutStart: Int64, gainSegment: inout Int,
                             lastDecibels: inout Double, lastGain: inout Double) -> Double {
        seek(&gainSegment, plan.gainDecibels, frame)
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
            gain *= FadeCurve.halfCosine.value(at: (Double(plan.totalFrames - frame) - 0.5) / Double(plan.fadeOutFrames))
        }
        return gain
    }

    /// Adds frames `blockStart ..< blockStart + frameCount` of the beats to `out` (interleaved).
    func render(into out: UnsafeMutablePointer<Float>, blockStart: Int64, frameCount: Int) {
        // shape: hot loop, the per-frame oscillators, gain and fades run on cursors kept in locals for the block
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
        var lowStep = Rotor.Step(0), highStep = Rotor.Step(0)
        var runStart = 0
        while runStart < frames {
            // Runs on a grid of the session's frames, whatever frame the block starts on, so that
            // every render of a frame turns its tones from the same anchor.
            let here = blockStart + Int64(runStart)
            let skip = Int(here % Int64(Self.runFrames))
            let first = here - Int64(skip)
            let n = min(Self.runFrames - skip, frames - runStart)
            /// The run's tones from `start`: binaural and monaural, the low tone (carrier − half
            /// the beat) and the high one; isochronic: the carrier alone (in `low`), gated at the beat.
            func rotors(from start: Int64) -> (low: Rotor, high: Rotor) {
                let middle = start + Int64(Self.runFrames / 2)
                let carrierPhase = carrier.phase(at: start), halfBeatPhase = halfBeat.phase(at: start)
                let carrierStep = carrier.value(at: middle) / rate, halfBeatStep = halfBeat.value(at: middle) / rate
                let isochronic = plan.kind == .isochronic
                lowStep = lowStep.reused(for: isochronic ? carrierStep : carrierStep - halfBeatStep)
                highStep = highStep.reused(for: carrierStep + halfBeatStep)
                let low = Rotor(phase: isochronic ? carrierPhase : carrierPhase - halfBeatPhase, step: lowStep)
                return (low, Rotor(phase: carrierPhase + halfBeatPhase, step: highStep))
            }
            // Two tones at one gain: two whole runs side by side (or this part of one), each
            // run's turns waiting on its own last, so the two runs' overlap.
            let whole = skip == 0 ? min(2, (frames - runStart) / Self.runFrames) : 0
            if turnsHigh, let gain = Self.levelGain(plan, first: here, last: here + Int64(whole > 0 ? whole * Self.runFrames : n) - 1,
                                                    fadeOutStart: fadeOutStart, gainSegment: &gainSegment,
                                                    lastDecibels: &lastDecibels, lastGain: &lastGain) {
                let length = whole > 0 ? Self.runFrames : n
                var (low, high) = rotors(from: first)
                for _ in 0..<skip { low.turn(); high.turn() }
                var one = RotorPair(low, high)
                var two = one
                if whole == 2 {
                    let (low2, high2) = rotors(from: first + Int64(Self.runFrames))
                    two = RotorPair(low2, high2)
                }
                let binaural = plan.kind == .binaural
                for i in 0..<length {
                    one.add(to: out, (runStart + i) * channels, channels: channels, binaural: binaural, gain: gain)
                    if whole == 2 {
                        two.add(to: out, (runStart + Self.runFrames + i) * channels, channels: channels, binaural: binaural, gain: gain)
                    }
                    one.turn()
                    two.turn()
                }
                runStart += max(1, whole) * length
                continue
            }
            var (low, high) = rotors(from: first)
            for _ in 0..<skip {
                low.turn()
                if turnsHigh { high.turn() }
            }
            let pulse = plan.kind == .isochronic && runsUnderHalfABeat
                ? Self.steadyPulse(&halfBeat, from: here, through: here + Int64(n) - 1) : nil
            let steadyGain = Self.levelGain(plan, first: here, last: here + Int64(n) - 1, fadeOutStart: fadeOutStart,
                                            gainSegment: &gainSegment, lastDecibels: &lastDecibels, lastGain: &lastGain)
            for f in runStart..<(runStart + n) {
                let frame = blockStart + Int64(f)
                let gain = steadyGain ?? Self.gain(plan, at: frame, fadeOutStart: fadeOutStart, gainSegment: &gainSegment,
                                                   lastDecibels: &lastDecibels, lastGain: &lastGain)
                let o = f * channels
                switch plan.kind {
                case .binaural:
                    out[o] += Float(low.sine * gain)
                    if channels > 1 { out[o + 1] += Float(high.sine * gain) }
                case .monaural:
                    let v = Float(0.5 * (low.sine + high.sine) * gain)
                    for c in 0..<channels { out[o + c] += v }
                case .isochronic:
                    let level = pulse ?? Beats.isochronicPulse(Self.beatPhase(&halfBeat, at: frame))
                    let v = Float(low.sine * level * gain)
                    for c in 0..<channels { out[o + c] += v }
                }
                low.turn()
                if turnsHigh { high.turn() }  // isochronic beats play one tone
            }
            runStart += n
        }
    }
}
