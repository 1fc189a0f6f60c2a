import Foundation
import MedrenderCore
import MedrenderPreview
import Testing

/// A session of cues only: settle 2 s, the pattern, closing 3 s.
func previewSession(_ pattern: BreathPattern, segments more: [PatternSegment] = []) -> Session {
    Session(name: "test", segments: [PatternSegment(pattern: pattern, span: more.isEmpty ? nil : .cycles(2), name: more.isEmpty ? nil : "first")] + more,
            settle: .seconds(2), closing: .seconds(3), master: MasterSettings(fadeIn: .zero, fadeOut: .seconds(1)))
}

func previewPlan(_ session: Session, cycles: Int = 3, rate: Int = 48000) throws -> RenderPlan {
    try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .cycles(cycles)))
}

@Suite struct TimelineTests {
    @Test func phasesSitOnTheCueSheetsFramesWithTheCirclesLevels() throws {
        let plan = try previewPlan(previewSession(BreathPattern(milliseconds: 4000, 2000, 6000, 1000)), rate: 22050)
        let timeline = SessionTimeline(plan: plan, title: "Box")
        let marks = Array(plan.cueMarks)
        #expect(timeline.phases.count == marks.count)
        for (phase, mark) in zip(timeline.phases, marks) {
            #expect(phase.kind == mark.kind)
            #expect(phase.cycle == mark.cycle)
            #expect(phase.startSeconds == Double(mark.frame) / 22050)
        }
        let levels = timeline.phases.prefix(4).map { [$0.fromLevel, $0.toLevel] }
        #expect(levels == [[0, 1], [1, 1], [1, 0], [0, 0]])
        #expect(timeline.durationSeconds == 2 + 3 * 13 + 3)
        #expect(timeline.sections.map(\.name) == ["Settle", "Breathing", "Closing"])
        #expect(timeline.sections.map(\.endSeconds) == [2, 41, 44])
    }

    @Test func theSighsFirstInhaleStopsShortAndTheTopUpFillsIt() throws {
        let sigh = BreathPattern(milliseconds: 2000, 500, 6000, 0, topUp: 1000)
        let timeline = SessionTimeline(plan: try previewPlan(previewSession(sigh)), title: "Sigh")
        let first = timeline.phases.prefix(while: { $0.cycle == 1 })
        #expect(first.map(\.kind) == [.inhale, .holdIn, .topUp, .exhale])
        #expect(first.map(\.toLevel) == [SessionTimeline.sighInhaleLevel, SessionTimeline.sighInhaleLevel, 1, 0])
    }

    @Test(arguments: [(0.25, 0.1464466), (0.5, 0.5), (0.75, 0.8535534)])
    func theMomentEasesThroughAnInhale(fraction: Double, level: Double) throws {
        let timeline = SessionTimeline(plan: try previewPlan(previewSession(BreathPattern(milliseconds: 4000, 4000, 4000, 4000))), title: "t")
        let inhale = try #require(timeline.phases.first)
        let moment = timeline.moment(at: inhale.startSeconds + fraction * 4)
        #expect(moment.label == "Breathe in")
        #expect(abs(moment.level - level) < 1e-6)
        #expect(moment.cycle == 1)
        #expect(moment.section == "Breathing")
    }

    @Test func outsideTheBreathingTheCircleRests() throws {
        let timeline = SessionTimeline(plan: try previewPlan(previewSession(BreathPattern(milliseconds: 4000, 4000, 4000, 4000))), title: "t")
        #expect(timeline.moment(at: 1).label == SessionTimeline.settleLabel)
        #expect(timeline.moment(at: 1).section == "Settle")
        #expect(timeline.moment(at: timeline.durationSeconds - 0.5).label == SessionTimeline.closingLabel)
        #expect(timeline.moment(at: timeline.durationSeconds - 0.5).level == 0)
        // Mid-hold after the inhale: full; mid-exhale: half.
        #expect(timeline.moment(at: 2 + 6).level == 1)
        #expect(abs(timeline.moment(at: 2 + 10).level - 0.5) < 1e-9)
    }

    @Test func chainedSegmentsAreTheSections() throws {
        let second = PatternSegment(pattern: BreathPattern(milliseconds: 5000, 0, 5000, 0), name: "slower")
        let timeline = SessionTimeline(plan: try previewPlan(previewSession(BreathPattern(milliseconds: 4000, 0, 4000, 0), segments: [second]), cycles: 4),
                                       title: "t")
        #expect(timeline.sections.map(\.name) == ["Settle", "first", "slower", "Closing"])
        #expect(timeline.sections[2].startSeconds == 2 + 16)
    }
}
