import Foundation
import MedrenderCore
import MedrenderPresets
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
        #expect(timeline.moment(at: 1).label == timeline.words.settleIn)
        #expect(timeline.moment(at: 1).section == "Settle")
        #expect(timeline.moment(at: timeline.durationSeconds - 0.5).label == timeline.words.rest)
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

@Suite struct TimelineLayerTests {
    /// Voice, two beds crossfading, ducking and bells, with the sounds' lengths known.
    @Test func clipsBedsDipsAndBellsAreWhereThePlanPutsThem() throws {
        let intro = SoundRef("voice-intro"), outro = SoundRef("voice-outro"), bell = SoundRef("bell")
        let rain = SoundRef("rain"), ocean = SoundRef("ocean")
        var session = Session(
            name: "layers", segments: [PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 6000, 0))],
            settle: .seconds(20), closing: .seconds(30),
            voice: VoiceSettings(intro: intro, introAt: .seconds(2), outro: outro),
            ambience: [AmbienceBed(sound: rain), AmbienceBed(sound: ocean)],
            bells: BellSettings(start: bell, end: bell))
        session.ambienceCrossfade = .seconds(10)
        let rate = 8000
        let sounds: [SoundRef: SoundFacts] = [
            intro: SoundFacts(frameCount: 5 * 8000), outro: SoundFacts(frameCount: 4 * 8000), bell: SoundFacts(frameCount: 6 * 8000),
            rain: SoundFacts(frameCount: 30 * 8000), ocean: SoundFacts(frameCount: 30 * 8000),
        ]
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(300))), sounds: sounds)
        let timeline = SessionTimeline(plan: plan, title: "layers")

        let voice = timeline.clips.filter { $0.kind == .voice }
        #expect(voice.map(\.name) == ["voice-intro", "voice-outro"])
        #expect(voice[0].startSeconds == 2 && voice[0].endSeconds == 7, "the intro at 2 s, as long as its sound")
        #expect(voice[1].endSeconds - voice[1].startSeconds == 4)
        let bells = timeline.clips.filter { $0.kind == .bell }
        #expect(bells.count == 2 && bells[0].startSeconds == 0)
        // The beds share the session and overlap by the crossfade, centred on 150 s.
        #expect(timeline.beds.map(\.name) == ["rain", "ocean"])
        #expect(timeline.beds[0].endSeconds == 155 && timeline.beds[1].startSeconds == 145)
        #expect(timeline.beds[1].fadeInSeconds == 10)
        // The ambience dips under each voice clip, as deep as the preset says; the intro's dip, which
        // would begin inside the ambience's 8-s fade-in, holds its depth from the fade-in's start.
        #expect(timeline.dips.count == 2)
        #expect(timeline.dips[0].startSeconds == 0 && timeline.dips[0].endSeconds == 7)
        #expect(abs(timeline.duckDecibels - -8) < 1e-4)

        // The preview's clips and sections are the plan's one list of events, as the cue sheets read it.
        let events = plan.events
        #expect(events.map(\.kind) == [.section, .bell, .voice, .section, .section, .voice, .bell], "\(events.map(\.kind))")
        let heard: [String] = events.filter { $0.kind != .section }.map { "\($0.name) \(Double($0.frame) / 8000)–\(Double($0.endFrame) / 8000)" }
        let clips: [String] = timeline.clips.map { "\($0.name) \($0.startSeconds)–\($0.endSeconds)" }
        #expect(heard == clips)
        #expect(events.compactMap(\.section) == plan.sections)
        #expect(events.filter { $0.kind == .section }.map(\.name) == timeline.sections.map(\.name))

        let svg = SessionPlot(timeline: timeline).svg
        #expect(svg.contains("<title>voice-intro 0:02</title>"))
        #expect(svg.contains("<title>rain 0:00–2:35</title>") && svg.contains("<title>ocean 2:25–5:00</title>"))
        #expect(svg.contains("ducking -8 dB under the voice"))
        #expect(svg.components(separatedBy: "<circle ").count - 1 == 2)
    }
}

/// A section is known by what it is, never by its name: segments called "Settle", "Breathing" and
/// "Closing" keep their names in a German session, and the session's own closing is "Ausklang".
@Suite struct SectionIdentityTests {
    @Test func segmentsNamedLikeTheSessionsSectionsKeepTheirNames() throws {
        let pattern = BreathPattern(milliseconds: 2000, 0, 2000, 0)
        var session = Session(name: "t", segments: [
            PatternSegment(pattern: pattern, span: .cycles(2), name: "Breathing"),
            PatternSegment(pattern: pattern, span: .cycles(2), name: "Settle"),
            PatternSegment(pattern: pattern, span: .cycles(2), name: "Closing"),
        ], settle: .seconds(2), closing: .seconds(3), master: MasterSettings(fadeIn: .zero, fadeOut: .seconds(1)))
        let german = try #require(LanguageCatalog.stock.language("de"))
        session.language = german
        let plan = try previewPlan(session, cycles: 6, rate: 8000)
        #expect(plan.sections.map(\.kind) == [.settle, .segment, .segment, .segment, .closing])
        #expect(plan.sections.map { german.words.section($0) } == ["Ankommen", "Breathing", "Settle", "Closing", "Ausklang"])
        // The preview keeps the segments (the first one stands for the breathing) under their own names.
        let timeline = SessionTimeline(plan: plan, title: "t")
        #expect(timeline.sections.map(\.name) == ["Ankommen", "Breathing", "Settle", "Closing", "Ausklang"])
    }
}
