import MedrenderCore
import PropertyBased
import Testing

/// Properties of the clock over random patterns, rates and lengths.
@Suite struct SchedulePropertyTests {
    /// `round(t × rate)` for `ms` milliseconds, computed apart from `SessionTime.frame`: in Double,
    /// where `ms × rate` < 2^53 is exact and a tie (…​.5) is exactly representable.
    static func expectedFrame(ms: Int64, rate: Int) -> Int64 {
        Int64((Double(ms) * Double(rate) / 1000).rounded(.toNearestOrAwayFromZero))
    }

    static func pattern(_ p: [Int]) -> BreathPattern {
        // At least a second of inhale, so every cycle is at least the 1-s minimum.
        BreathPattern(milliseconds: Int64(1000 + p[0]), Int64(p[1]), Int64(p[2]), Int64(p[3]), topUp: Int64(p[4]))
    }

    @Test func everyCueFrameIsTheRoundedExactTimeAndNoCycleIsCut() async {
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 8000...192_000), Gen.int(in: 0...12_000).array(of: 5), Gen.int(in: 0...30_000),
            Gen.int(in: 60_000...10_800_000), Gen.bool()
        ) { rate, phases, settleMs, totalMs, sigh in
            var p = phases
            if !sigh { p[4] = 0 }
            let pattern = Self.pattern(p)
            let session = Session(
                name: "p", segments: [PatternSegment(pattern: pattern)], settle: SessionTime(milliseconds: Int64(settleMs)),
                closing: .seconds(10))
            let total = SessionTime(milliseconds: Int64(totalMs))
            guard total >= session.settle + session.closing + pattern.cycleLength else { return }
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(total)))
            // Exact total.
            #expect(plan.totalFrames == Self.expectedFrame(ms: Int64(totalMs), rate: rate))
            // A short session gives settle and closing at most a third of it (ShortSessionFit):
            // the schedule is that of the session as it plays.
            let played = ShortSessionFit(session: session, total: total).session
            // No cycle cut: the breathing ends on a whole cycle, and one more would not fit.
            let cycles = Int64(plan.schedule.cycleCount)
            #expect(plan.schedule.end == played.settle + pattern.cycleLength * cycles)
            #expect(plan.schedule.end + played.closing <= total)
            #expect(plan.schedule.end + pattern.cycleLength + played.closing > total)
            // Every cue on round(t × rate) of its exact time, t a running sum of whole milliseconds.
            var t = played.settle.milliseconds
            var count = 0
            for mark in plan.cueMarks {
                #expect(mark.time.milliseconds == t)
                #expect(mark.frame == Self.expectedFrame(ms: t, rate: rate))
                t += mark.length.milliseconds
                count += 1
            }
            #expect(count == Int(cycles) * pattern.phases.count)
            #expect(t == plan.schedule.end.milliseconds)
        }
    }

    @Test func cyclesGiveSettlePlusCyclesPlusClosing() async {
        await propertyCheck(
            count: 200,
            input: Gen.int(in: 8000...192_000), Gen.int(in: 0...12_000).array(of: 5), Gen.int(in: 1...500)
        ) { rate, phases, cycles in
            let pattern = Self.pattern(phases)
            let session = Session(name: "p", segments: [PatternSegment(pattern: pattern)], closing: .seconds(7))
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .cycles(cycles)))
            let totalMs = session.settle.milliseconds + pattern.cycleLength.milliseconds * Int64(cycles) + 7000
            #expect(plan.total.milliseconds == totalMs)
            #expect(plan.totalFrames == Self.expectedFrame(ms: totalMs, rate: rate))
            #expect(plan.schedule.cycleCount == cycles)
        }
    }

    @Test func rampsAndChainsKeepEveryBoundaryExact() async {
        await propertyCheck(
            count: 150,
            input: Gen.int(in: 8000...96_000), Gen.int(in: 0...9_000).array(of: 5), Gen.int(in: 0...9_000).array(of: 5),
            Gen.int(in: 1...40), Gen.element(of: FadeCurve.allCases)
        ) { rate, from, to, rampCycles, curve in
            let ramp = PatternRamp(target: Self.pattern(to), span: .cycles(rampCycles), curve: curve ?? .linear)
            let first = PatternSegment(pattern: Self.pattern(from), ramp: ramp, span: .duration(.seconds(300)))
            let second = PatternSegment(pattern: Self.pattern(to))
            let session = Session(name: "p", segments: [first, second], settle: .seconds(5), closing: .seconds(5))
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(900))))
            var t = Int64(5000)
            var previousCycle = 0
            for mark in plan.cueMarks {
                #expect(mark.time.milliseconds == t)
                #expect(mark.frame == Self.expectedFrame(ms: t, rate: rate))
                #expect(mark.cycle >= previousCycle)
                previousCycle = mark.cycle
                t += mark.length.milliseconds
            }
            #expect(t == plan.schedule.end.milliseconds)
            #expect(plan.schedule.end + .seconds(5) <= plan.total)
            // The first segment stays within its five minutes.
            #expect(plan.schedule.segmentStarts[1] - plan.schedule.segmentStarts[0] <= .seconds(300))
        }
    }

    @Test func cueOnlyAudioHasItsFirstNonZeroSampleOnEveryCueFrame() async {
        await propertyCheck(
            count: 25,
            input: Gen.int(in: 8000...192_000), Gen.int(in: 0...4_000).array(of: 5), Gen.int(in: 0...3_000)
        ) { rate, phases, settleMs in
            let pattern = Self.pattern(phases)
            let session = withCutCues(Session(
                name: "p", segments: [PatternSegment(pattern: pattern)], settle: SessionTime(milliseconds: Int64(settleMs)),
                closing: .seconds(2), master: MasterSettings(fadeOut: .seconds(1))))
            let total = session.settle + pattern.cycleLength * 2 + .seconds(2)
            let plan = try RenderPlan(
                session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(total), layers: [.cues]))
            let mixer = Mixer(plan: plan, assets: MixAssets(sounds: [:]))
            var audio = [Float](repeating: 0, count: Int(plan.totalFrames))
            audio.withUnsafeMutableBufferPointer { p in
                var done = 0
                while done < p.count {
                    let n = min(4096, p.count - done)
                    mixer.render(into: p.baseAddress! + done, frameCount: n)
                    done += n
                }
            }
            let marks = Array(plan.cueMarks)
            #expect(!marks.isEmpty)
            var searchFrom = 0
            for mark in marks {
                // Between the previous cue's end and this cue, silence; on its frame, sound.
                let f = Int(mark.frame)
                let firstSound = audio[searchFrom...].firstIndex { $0 != 0 }
                #expect(firstSound == f, "first non-zero sample after \(searchFrom) is \(String(describing: firstSound)), the cue is at \(f)")
                searchFrom = Int((mark.time + mark.length).frame(atRate: rate))
            }
        }
    }
}
