import Foundation
import MedrenderCore
import Testing

/// A spectrum analyser independent of the renderer: a radix-2 FFT of the Hann-windowed second finds
/// the peak's bin, then the windowed spectrum, evaluated directly, is searched around it for the peak's
/// frequency.
enum Spectrum {
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<length / 2 {
                    let wr = cos(angle * Double(k)), wi = sin(angle * Double(k))
                    let a = start + k, b = a + length / 2
                    let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            length <<= 1
        }
    }

    /// The frequency of the strongest peak of `x` (one channel), in hertz.
    static func peakHertz(_ x: [Double], rate: Int) -> Double {
        let n = x.count
        let windowed = (0..<n).map { x[$0] * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n - 1))) }
        var size = 1
        while size < 2 * n { size <<= 1 }
        var re = windowed + [Double](repeating: 0, count: size - n), im = [Double](repeating: 0, count: size)
        fft(&re, &im)
        var best = 1
        for k in 1..<size / 2 where re[k] * re[k] + im[k] * im[k] > re[best] * re[best] + im[best] * im[best] { best = k }
        let bin = Double(rate) / Double(size)
        func magnitude(_ f: Double) -> Double {
            var sr = 0.0, si = 0.0
            let w = 2 * Double.pi * f / Double(rate)
            for i in 0..<n { sr += windowed[i] * cos(w * Double(i)); si -= windowed[i] * sin(w * Double(i)) }
            return sr * sr + si * si
        }
        // Golden-section search over the bins either side of the peak.
        var a = (Double(best) - 1) * bin, b = (Double(best) + 1) * bin
        let g = (5.0.squareRoot() - 1) / 2
        var c = b - g * (b - a), d = a + g * (b - a)
        var fc = magnitude(c), fd = magnitude(d)
        while b - a > 1e-5 {
            if fc > fd { b = d; d = c; fd = fc; c = b - g * (b - a); fc = magnitude(c) } else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = magnitude(d) }
        }
        return (a + b) / 2
    }
}

@Suite struct BeatsTests {
    static func session(_ beats: Beats, pattern: BreathPattern = BreathPattern(milliseconds: 4000, 4000, 4000, 4000)) -> Session {
        var session = Session(name: "beats", segments: [PatternSegment(pattern: pattern)], settle: .seconds(10), closing: .seconds(20))
        session.ambienceFadeIn = .seconds(2)
        session.ambienceFadeOut = .seconds(2)
        session.beats = beats
        return session
    }

    static func plan(_ beats: Beats, rate: Int, seconds: Int64 = 120, channels: Int = 2) throws -> RenderPlan {
        try RenderPlan(session: session(beats), options: RenderOptions(rate: rate, channels: channels, length: .duration(.seconds(seconds)), layers: [.beats]))
    }

    /// One second of the mix from `start`, by channel, rendered by a mixer started there.
    static func second(_ plan: RenderPlan, from start: Int64) -> (left: [Double], right: [Double]) {
        let mixer = Mixer(plan: plan, assets: MixAssets(sounds: [:]), startFrame: start)
        var out = [Float](repeating: 0, count: plan.rate * 2)
        out.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: plan.rate) }
        return ((0..<plan.rate).map { Double(out[$0 * 2]) }, (0..<plan.rate).map { Double(out[$0 * 2 + 1]) })
    }

    /// Measures the second centred on `centre` and checks each ear against the plan within 0.01 Hz.
    static func expectEars(_ plan: RenderPlan, centre: Int64) {
        let start = centre - Int64(plan.rate / 2)
        let (left, right) = second(plan, from: start)
        // The window's centre falls between frames centre − 1 and centre.
        let plannedLeft = (plan.beats!.leftHertz(at: centre - 1) + plan.beats!.leftHertz(at: centre)) / 2
        let plannedRight = (plan.beats!.rightHertz(at: centre - 1) + plan.beats!.rightHertz(at: centre)) / 2
        let measuredLeft = Spectrum.peakHertz(left, rate: plan.rate), measuredRight = Spectrum.peakHertz(right, rate: plan.rate)
        #expect(abs(measuredLeft - plannedLeft) < 0.01, "left at frame \(centre): \(measuredLeft) Hz, planned \(plannedLeft) Hz")
        #expect(abs(measuredRight - plannedRight) < 0.01, "right at frame \(centre): \(measuredRight) Hz, planned \(plannedRight) Hz")
    }

    @Test(arguments: [44100, 48000])
    func slideEarsMatchThePlan(rate: Int) throws {
        // 10 Hz at the first breath, sliding to 4 Hz at the closing, then to 2 Hz at the end;
        // the carrier rises from 200 to 260 Hz over the breathing.
        let beats = Beats(kind: .binaural, points: [
            BeatPoint(at: .time(.zero), beatHertz: 10, carrierHertz: 200),
            BeatPoint(at: .breathing, beatHertz: 10, carrierHertz: 200),
            BeatPoint(at: .closing, beatHertz: 4, carrierHertz: 260),
            BeatPoint(at: .end, beatHertz: 2, carrierHertz: 260),
        ])
        let plan = try Self.plan(beats, rate: rate)
        let breathing = plan.schedule.start.frame(atRate: rate), closing = plan.schedule.end.frame(atRate: rate)
        #expect(plan.beats!.beatHertz(at: breathing) == 10)
        #expect(abs(plan.beats!.beatHertz(at: closing) - 4) < 1e-12)
        // Seconds inside the slides (a second across a knot, where the slope turns, has no one frequency).
        for seconds in [30.0, 55.5, 85.0, 110.0] {
            Self.expectEars(plan, centre: Int64(seconds * Double(rate)))
        }
        // Mid-slide, the ears are apart by the planned beat, and it is between 10 and 4 Hz.
        let middle = (breathing + closing) / 2
        #expect(abs(plan.beats!.beatHertz(at: middle) - 7) < 0.01)
    }

    @Test(arguments: [44100, 48000])
    func followBreathEarsMatchThePlan(rate: Int) throws {
        let beats = Beats(kind: .binaural, points: [BeatPoint(at: .time(.zero), carrierHertz: 220)],
                          follow: BreathBeat(lowHertz: 6, highHertz: 10))
        let plan = try Self.plan(beats, rate: rate)
        var checked = 0
        for phase in plan.schedule {
            let start = phase.start.frame(atRate: rate), end = phase.end.frame(atRate: rate)
            // The beat at each breath boundary is what the breath says.
            switch phase.kind {
            case .inhale:
                #expect(abs(plan.beats!.beatHertz(at: start) - 6) < 1e-9)
                #expect(abs(plan.beats!.beatHertz(at: end) - 10) < 1e-9)
            case .exhale:
                #expect(abs(plan.beats!.beatHertz(at: start) - 10) < 1e-9)
                #expect(abs(plan.beats!.beatHertz(at: end) - 6) < 1e-9)
            default: break
            }
            // Measured: the middle of an inhale and of an exhale (the ease's steepest point), and
            // the holds at the top and the bottom, in the third cycle.
            if phase.cycle == 3 {
                Self.expectEars(plan, centre: (start + end) / 2)
                checked += 1
            }
        }
        #expect(checked == 4)
    }

    @Test func monauralAndIsochronicMeasure() throws {
        for kind in [Beats.Kind.monaural, .isochronic] {
            let plan = try Self.plan(Beats(kind: kind, points: [BeatPoint(at: .time(.zero), beatHertz: 8, carrierHertz: 300)]), rate: 8000, seconds: 60)
            let (left, right) = Self.second(plan, from: 30 * 8000)
            #expect(left == right, "\(kind) plays the same in both ears")
            // The strongest component of either is within a beat of the carrier; isochronic pulses
            // rest half the time.
            #expect(abs(Spectrum.peakHertz(left, rate: 8000) - 300) <= 4.01)
            if kind == .isochronic {
                let silent = left.filter { $0 == 0 }.count
                #expect(silent > 3000 && silent < 4500, "isochronic rests half of each beat: \(silent) silent frames")
            }
        }
    }

    /// An isochronic beat rests for half of every beat and sounds for the other half, at the
    /// fastest beat (40 Hz) at 8 kHz, where a 256-frame run of the generator spans more than a
    /// beat, and at 10 Hz at 48 kHz, where a run spans a twentieth of one: no stretch of silence or
    /// of sound runs past half a beat.
    @Test(arguments: [(8000, 40.0), (48000, 10.0)])
    func isochronicRestsEveryHalfBeat(rate: Int, beatHertz: Double) throws {
        let plan = try Self.plan(Beats(kind: .isochronic, points: [BeatPoint(at: .time(.zero), beatHertz: beatHertz, carrierHertz: 300)]),
                                 rate: rate, seconds: 60)
        let (left, _) = Self.second(plan, from: Int64(30 * rate))
        var longest = (silent: 0, sounding: 0), run = 0
        for i in left.indices {
            run = i > 0 && (left[i] == 0) == (left[i - 1] == 0) ? run + 1 : 1
            if left[i] == 0 { longest.silent = max(longest.silent, run) } else { longest.sounding = max(longest.sounding, run) }
        }
        let halfBeat = Int(Double(rate) / beatHertz / 2)
        #expect(longest.silent <= halfBeat + 2 && longest.sounding <= halfBeat + 2,
                "\(beatHertz) Hz at \(rate) Hz: longest silence \(longest.silent) frames, sound \(longest.sounding), half a beat \(halfBeat)")
        let silent = Double(left.filter { $0 == 0 }.count) / Double(left.count)
        #expect(silent > 0.45 && silent < 0.55, "rests half the time: \(silent)")
    }

    @Test func isochronicPulseHasNoStep() {
        var previous = Beats.isochronicPulse(0)
        #expect(previous == 0)
        for i in 1...10000 {
            let value = Beats.isochronicPulse(Double(i) / 10000)
            #expect(abs(value - previous) < 0.002)
            previous = value
        }
    }

    @Test func aMixerStartedAnywhereRendersTheSameFrames() throws {
        for follow in [nil, BreathBeat(lowHertz: 4, highHertz: 12, curve: .easeInOut)] {
            let beats = Beats(kind: .binaural, points: [
                BeatPoint(at: .time(.zero), beatHertz: 10, carrierHertz: 200),
                BeatPoint(at: .closing, beatHertz: 3, carrierHertz: 150, gainDecibels: -20, curve: .exponential),
            ], follow: follow)
            let plan = try Self.plan(beats, rate: 8000, seconds: 90)
            let whole = renderMix(plan, block: 1000)
            for start in [Int64(1), 4095, 160_001, 500_000, plan.totalFrames - 7] {
                let mixer = Mixer(plan: plan, assets: MixAssets(sounds: [:]), startFrame: start)
                let n = Int(min(9000, plan.totalFrames - start))
                var part = [Float](repeating: 0, count: n * 2)
                part.withUnsafeMutableBufferPointer { p in
                    var done = 0
                    while done < n { let k = min(777, n - done); mixer.render(into: p.baseAddress! + done * 2, frameCount: k); done += k }
                }
                #expect(part == Array(whole[Int(start) * 2 ..< (Int(start) + n) * 2]), "from frame \(start)")
            }
        }
    }

    @Test func binauralInMonoIsAnErrorThatSaysWhy() throws {
        let beats = Beats(kind: .binaural)
        #expect(throws: PlanError.beats(.binauralNeedsStereo)) { try Self.plan(beats, rate: 8000, channels: 1) }
        #expect(PlanError.beats(.binauralNeedsStereo).description.contains("mono"))
        // Monaural beats play in mono; so does a mono render without the beats layer.
        _ = try Self.plan(Beats(kind: .monaural), rate: 8000, channels: 1)
        _ = try RenderPlan(session: Self.session(beats), options: RenderOptions(rate: 8000, channels: 1, length: .duration(.seconds(60)), layers: [.cues]))
    }

    @Test func aPointAfterTheEndIsAnError() throws {
        let location = ScriptLocation(file: "b.yaml", line: 7, column: 9)
        let beats = Beats(points: [BeatPoint(at: .time(.zero)), BeatPoint(at: .time(.seconds(200)), beatHertz: 4, location: location)])
        do {
            _ = try Self.plan(beats, rate: 8000, seconds: 120)
            Issue.record("no error")
        } catch {
            let text = String(describing: error)
            #expect(text.hasPrefix("b.yaml:7:9: "), "\(text)")
            #expect(text.contains("120 s"))
        }
    }

    @Test(arguments: FadeCurve.allCases)
    func curveIntegralsAreTheArea(curve: FadeCurve) {
        // Midpoint sums of 100,000 steps against the closed form.
        for x in [0.0, 0.25, 0.5, 0.7, 1.0] {
            let steps = 100_000
            var sum = 0.0
            for i in 0..<steps { sum += curve.value(at: (Double(i) + 0.5) / Double(steps) * x) }
            sum *= x / Double(steps)
            #expect(abs(sum - curve.integral(at: x)) < 1e-7, "\(curve) at \(x): \(sum) vs \(curve.integral(at: x))")
        }
    }
}
