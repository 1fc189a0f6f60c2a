import MedrenderCore
import Testing

/// The guided script's placement, pure: lines on frames, fixed pauses and rests kept, elastic
/// pauses and rests shared by weight, and a clear error for a script that does not fit.
@Suite struct ScriptPlacerTests {
    static let rate = 8000
    /// Lines of 3, 2, 4 and 1.5 s (as their sounds' lengths), then a closing line.
    static let lengths: [Double] = [3, 2, 4, 1.5, 2]

    static func session(minutes: Double) -> Session {
        var session = Session(name: "script", defaultLength: .duration(SessionTime(minutes: minutes)!),
                              segments: [PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 6000, 0))])
        session.settle = .seconds(20)
        session.closing = .seconds(30)
        func line(_ n: Int, _ start: GuideLine.Start, during: SessionPart? = nil) -> GuideLine {
            var l = GuideLine(content: .say("line \(n)"), start: start, during: during,
                              location: ScriptLocation(file: "s.yaml", line: n + 10, column: 7))
            l.speech = SoundRef("line-\(n)")
            return l
        }
        session.guide = GuideScript(lines: [
            line(0, .after(.seconds(2))),
            line(1, .after(.seconds(1)), during: .breathing),
            line(2, .elastic(minimum: .seconds(5), weight: 1)),
            line(3, .elastic(minimum: .seconds(5), weight: 3)),
            line(4, .after(.seconds(2)), during: .closing),
        ])
        return session
    }

    static var sounds: [SoundRef: SoundFacts] {
        var facts: [SoundRef: SoundFacts] = [:]
        for (n, seconds) in lengths.enumerated() { facts[SoundRef("line-\(n)")] = SoundFacts(frameCount: Int64(seconds * Double(rate))) }
        return facts
    }

    static func plan(minutes: Double) throws -> RenderPlan {
        try RenderPlan(session: session(minutes: minutes),
                       options: RenderOptions(rate: rate, length: .duration(SessionTime(minutes: minutes)!)), sounds: sounds)
    }

    @Test func oneScriptFillsFiveTenAndFortyMinutes() throws {
        var gaps: [[Int64]] = []
        for minutes in [5.0, 10, 40] {
            let plan = try Self.plan(minutes: minutes)
            #expect(plan.totalFrames == Int64(minutes * 60) * Int64(Self.rate))
            let lines = plan.guide.lines
            #expect(lines.map(\.index) == [0, 1, 2, 3, 4])
            #expect(lines.map(\.startFrame) == lines.map(\.startFrame).sorted())
            for (a, b) in zip(lines, lines.dropFirst()) { #expect(a.endFrame <= b.startFrame) }
            // Fixed pauses kept: 2 s from the start, 1 s into the breathing, 2 s into the closing.
            #expect(lines[0].startFrame == 2 * 8000)
            #expect(lines[1].startFrame == plan.schedule.start.frame(atRate: Self.rate) + 8000)
            #expect(lines[4].startFrame == plan.schedule.end.frame(atRate: Self.rate) + 2 * 8000)
            // The elastic pauses: at least their minimums, and the second three times the first's extra.
            let pause2 = lines[2].startFrame - lines[1].endFrame, pause3 = lines[3].startFrame - lines[2].endFrame
            #expect(pause2 >= 5 * 8000 && pause3 >= 5 * 8000)
            let extra2 = pause2 - 5 * 8000, extra3 = pause3 - 5 * 8000
            #expect(abs(extra3 - 3 * extra2) <= 8 * 4, "extras \(extra2), \(extra3) at \(minutes) min")
            // The last breathing line ends on the breathing's end (the pauses share all the spare time).
            #expect(abs(lines[3].endFrame - plan.schedule.end.frame(atRate: Self.rate)) <= 8)
            // Every line plays as a voice clip on its frame, and the ambience ducks under it.
            for line in lines { #expect(plan.clips.contains { $0.startFrame == line.startFrame && $0.sound == .file(line.sound!) }) }
            gaps.append([pause2, pause3])
        }
        // Longer sessions, longer elastic pauses.
        #expect(gaps[0][0] < gaps[1][0] && gaps[1][0] < gaps[2][0])
        #expect(gaps[0][1] < gaps[1][1] && gaps[1][1] < gaps[2][1])
    }

    @Test func aScriptThatDoesNotFitNamesTheLineAndTheMissingSeconds() throws {
        var session = Self.session(minutes: 5)
        session.guide!.lines[3].start = .elastic(minimum: .seconds(400), weight: 1)
        do {
            _ = try RenderPlan(session: session, options: RenderOptions(rate: Self.rate, length: .duration(.seconds(300))), sounds: Self.sounds)
            Issue.record("planned")
        } catch {
            let text = error.description
            #expect(text.contains("guide line 4"), "\(text)")
            #expect(text.contains("s.yaml:13:7"), "\(text)")
            guard case .guideLineDoesNotFit(let line, _, _, let missing, _) = error else { Issue.record("\(error)"); return }
            #expect(line == 3)
            // 300 s: 20 settle, 30 closing, 25 cycles of 10 s = 250 s of breathing; the run needs
            // 1 + 2 + 5 + 4 + 400 + 1.5 = 413.5 s.
            #expect(missing == SessionTime(milliseconds: 413_500 - 250_000))
        }
    }

    @Test func aFlowingLineWaitsForAPromptAndNeverOverlapsIt() throws {
        var session = Self.session(minutes: 5)
        session.voice.prompts[.inhale] = SoundRef("prompt")
        session.voice.promptCycles = 3
        var sounds = Self.sounds
        sounds[SoundRef("prompt")] = SoundFacts(frameCount: 2 * 8000)
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: Self.rate, length: .duration(.seconds(300))), sounds: sounds)
        let prompts = plan.clips.filter { $0.sound == .file(SoundRef("prompt")) }.map { $0.startFrame..<($0.startFrame + 2 * 8000) }
        #expect(prompts.count == 3)
        for line in plan.guide.lines {
            for prompt in prompts { #expect(!prompt.overlaps(line.startFrame..<line.endFrame), "line \(line.index) over a prompt") }
        }
        // Line 1 would start 1 s into the breathing, during the first prompt: it waits for its end.
        #expect(plan.guide.lines[1].startFrame == prompts[0].upperBound)
    }

    /// Five minutes: guide lines 2 and 3 flow from the breathing's start (20 s) to guide line 4 at
    /// 200 s. Line 2 (2 s) rests at least 3 s after it (weight 1); line 3 (4 s) pauses at least 5 s
    /// before it (weight 3) and rests 6 s after it.
    static func restingSession(lastRest: GuideLine.Rest = .fixed(.seconds(6)), third: GuideLine.Start = .at(.seconds(200)),
                               thirdDuring: SessionPart? = nil) -> Session {
        var session = Self.session(minutes: 5)
        session.guide!.lines[1].rest = .elastic(minimum: .seconds(3), weight: 1)
        session.guide!.lines[2].start = .elastic(minimum: .seconds(5), weight: 3)
        session.guide!.lines[2].rest = lastRest
        session.guide!.lines[3].start = third
        session.guide!.lines[3].during = thirdDuring
        session.guide!.lines.removeLast()
        return session
    }

    static func plan(_ session: Session) throws(PlanError) -> RenderPlan {
        try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(300))), sounds: sounds)
    }

    @Test func aLineBeforeAPlacedLineKeepsItsRestAndTheSpareTimeGoesToRestsAndPausesByWeight() throws {
        let lines = try Self.plan(Self.restingSession()).guide.lines
        let second: Int64 = 8000
        // The run has 180 s; its lines, pauses and rests take 2 + 1 + 3 + 4 + 5 + 6 = 21 s at least.
        // The 159 s left: 39.75 s to line 2's rest (weight 1), 119.25 s to line 3's pause (weight 3).
        #expect(lines[1].startFrame == 21 * second && lines[1].endFrame == 23 * second)
        #expect(lines[2].startFrame == 190 * second, "\(lines[2].startFrame)")
        // Line 3 ends its 6-s rest before line 4 at 200 s.
        #expect(lines[2].endFrame == 194 * second)
        #expect(lines[3].startFrame == 200 * second)
        // Without the rest, the last line of the run runs straight into the placed line, as before.
        let unrested = try Self.plan(Self.restingSession(lastRest: .fixed(.zero))).guide.lines
        #expect(unrested[2].endFrame == unrested[3].startFrame)
        // An elastic rest on the last line takes its share too: weights 1, 3 and 4 share the 159 s
        // as 19.875, 59.625 and 79.5 s, so line 3 ends 6 + 79.5 s before line 4.
        let elastic = try Self.plan(Self.restingSession(lastRest: .elastic(minimum: .seconds(6), weight: 4))).guide.lines
        #expect(elastic[2].startFrame - elastic[1].endFrame == (3 + 5) * second + (19_875 + 59_625) * second / 1000)
        #expect(elastic[2].endFrame == 200 * second - 6 * second - 79_500 * second / 1000)
    }

    @Test func aLineAtItsPartsEndKeepsItsRest() throws {
        let plan = try Self.plan(Self.restingSession(third: .after(.seconds(2)), thirdDuring: .closing))
        let breathingEnd = plan.schedule.end.frame(atRate: Self.rate)
        #expect(plan.guide.lines[2].endFrame == breathingEnd - 6 * 8000)
        #expect(plan.guide.lines[3].startFrame == breathingEnd + 2 * 8000)
    }

    @Test func aRestThatDoesNotFitNamesItsLineAndTheSecondsMissing() throws {
        do {
            _ = try Self.plan(Self.restingSession(lastRest: .fixed(.seconds(200))))
            Issue.record("planned")
        } catch {
            guard case .guideLineDoesNotFit(let line, _, _, let missing, _) = error else { Issue.record("\(error)"); return }
            // 2 + 1 + 3 + 4 + 5 + 200 = 215 s in a run of 180 s.
            #expect(line == 2)
            #expect(missing == .seconds(35))
            #expect(error.description.contains("s.yaml:12:7"), "\(error.description)")
        }
    }
}
