import MedrenderCore
import Testing

@Suite struct BreathScheduleTests {
    let box = BreathPattern(milliseconds: 4000, 4000, 4000, 4000)

    @Test func boxFillsWholeCyclesAndNeverCutsOne() throws {
        // 100 s of budget holds 6 whole 16-s cycles (96 s); the 7th would be cut, so it is not played.
        let schedule = try BreathSchedule(
            segments: [PatternSegment(pattern: box)], start: .seconds(20), length: .time(.seconds(100)))
        #expect(schedule.cycleCount == 6)
        #expect(schedule.end == .seconds(20 + 96))
        let phases = Array(schedule)
        #expect(phases.count == 24)
        #expect(phases.first?.start == .seconds(20))
        #expect(phases.last?.end == schedule.end)
        #expect(phases.map(\.kind).prefix(4) == [.inhale, .holdIn, .exhale, .holdOut])
    }

    @Test func zeroPhasesAreSkipped() throws {
        let relax = BreathPattern(milliseconds: 4000, 0, 6000, 0)
        let schedule = try BreathSchedule(segments: [PatternSegment(pattern: relax)], start: .zero, length: .cycles(3))
        #expect(Array(schedule).map(\.kind) == [.inhale, .exhale, .inhale, .exhale, .inhale, .exhale])
        #expect(schedule.end == .seconds(30))
    }

    @Test func phasesAreContiguousAndExactOverThreeHours() throws {
        let coherent = BreathPattern(milliseconds: 5500, 0, 5500, 0)
        let schedule = try BreathSchedule(
            segments: [PatternSegment(pattern: coherent)], start: .seconds(20), length: .time(.seconds(3 * 3600)))
        var previousEnd = SessionTime.seconds(20)
        var count = 0
        for phase in schedule {
            #expect(phase.start == previousEnd)
            previousEnd = phase.end
            count += 1
        }
        // 10,800 s / 11 s = 981 whole cycles.
        #expect(schedule.cycleCount == 981)
        #expect(count == 981 * 2)
        // The last inhale starts exactly at 20 s + 980 × 11 s.
        #expect(previousEnd == SessionTime.seconds(20) + SessionTime(milliseconds: 981 * 11000))
    }

    @Test func emptyCycleIsAnError() {
        let empty = BreathPattern(milliseconds: 0, 0, 0, 0)
        #expect(throws: ScheduleError.emptyCycle(segment: 0)) {
            try BreathSchedule(segments: [PatternSegment(pattern: empty)], start: .zero, length: .cycles(1))
        }
    }

    @Test func nothingFitsIsAnError() {
        #expect(throws: ScheduleError.self) {
            try BreathSchedule(segments: [PatternSegment(pattern: box)], start: .zero, length: .time(.seconds(15)))
        }
    }

    @Test func chainedSegmentsPlayInTurn() throws {
        let a = PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 6000, 0), span: .duration(.seconds(35)))
        let b = PatternSegment(pattern: BreathPattern(milliseconds: 5000, 0, 10000, 0))
        let schedule = try BreathSchedule(segments: [a, b], start: .zero, length: .time(.seconds(80)))
        // 35 s holds 3 cycles of 10 s; then 50 s are left: 3 cycles of 15 s.
        #expect(schedule.cycleCounts == [3, 3])
        #expect(schedule.segmentStarts == [.zero, .seconds(30)])
        #expect(schedule.end == .seconds(75))
    }

    @Test func rampRoundsEachCycleToTheMillisecond() throws {
        let ramp = PatternRamp(target: BreathPattern(milliseconds: 4000, 0, 8000, 0), span: .cycles(3))
        let segment = PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 4000, 0), ramp: ramp)
        #expect(segment.pattern(cycle: 0, elapsed: .zero).exhale == .seconds(4))
        #expect(segment.pattern(cycle: 1, elapsed: .zero).exhale.milliseconds == 5333)
        #expect(segment.pattern(cycle: 2, elapsed: .zero).exhale.milliseconds == 6667)
        #expect(segment.pattern(cycle: 3, elapsed: .zero).exhale == .seconds(8))
        #expect(segment.pattern(cycle: 50, elapsed: .zero).exhale == .seconds(8))
    }
}
