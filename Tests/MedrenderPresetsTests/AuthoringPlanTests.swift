import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// What a preset says is what plays: explicit settle and closing, spare time, beds at a minute and
/// crowded bells, planned as a render plans them (no sounds needed).
@Suite struct AuthoringPlanTests {
    static func plan(_ yaml: String, minutes: Double, rate: Int = 8000) throws -> RenderPlan {
        let session = try decode(yaml)
        return try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(SessionTime(minutes: minutes)!)))
    }

    /// Breathe 5 minutes, then sit 10: at the preset's own length the settle and closing are what
    /// the author wrote, and nothing is said.
    @Test func explicitSettleAndClosingAreKeptAtThePresetsLength() throws {
        let yaml = "minutes: 15\npattern: 4-0-6-0\nsettle: 10\nclosing: 600\n"
        let plan = try Self.plan(yaml, minutes: 15)
        #expect(plan.schedule.start == .seconds(10))
        let closing = plan.total - plan.schedule.end
        #expect(closing >= .seconds(600) && closing < .seconds(610), "closing \(closing)")
        #expect(plan.schedule.cycleCount == 29)
        #expect(plan.notes.isEmpty && plan.fitChanges.isEmpty, "\(plan.notes) \(plan.fitChanges)")
        // Longer than the preset's length too.
        let longer = try Self.plan(yaml, minutes: 20)
        #expect(longer.schedule.start == .seconds(10))
        #expect(longer.total - longer.schedule.end >= .seconds(600))
    }

    /// Shorter than its preset, the session is fitted, and the plan says what changed.
    @Test func aShorterSessionSaysWhatTheFitChanged() throws {
        let plan = try Self.plan("minutes: 15\npattern: 4-0-6-0\nsettle: 10\nclosing: 600\n", minutes: 6)
        // Settle and closing shrink to a third of the 6 minutes between them (the settle to its least, 2 s).
        #expect(plan.schedule.start == .seconds(2))
        #expect(plan.total - plan.schedule.end < .seconds(130))
        #expect(plan.fitChanges.contains { $0.contains("settle 10 → 2 s") && $0.contains("closing 600 → ") && $0.contains("15 min") }, "\(plan.fitChanges)")
    }

    static let chain = """
        minutes: 5
        settle: 20
        closing: 10
        segments:
          - { name: Warm, pattern: 4-0-6-0, minutes: 1 }
          - { name: Slow, pattern: 5-0-5-0, minutes: 1 }

        """

    /// Segments that all have a length leave time over: by default it goes to the closing, and
    /// the plan warns and says how to choose.
    @Test func spareTimeAfterTheLastSegmentIsWarnedAbout() throws {
        let plan = try Self.plan(Self.chain, minutes: 5)
        let closing = plan.total - plan.schedule.end
        #expect(closing == .seconds(160))
        #expect(plan.notes.contains { $0.contains("'Slow'") && $0.contains("fill: breathing") && $0.contains("160 s") }, "\(plan.notes)")
        // Said explicitly, it is kept and not warned about.
        let said = try Self.plan(Self.chain + "fill: closing\n", minutes: 5)
        #expect(said.total - said.schedule.end == .seconds(160))
        #expect(said.notes.isEmpty, "\(said.notes)")
    }

    /// `fill: last-segment` breathes the last segment on to the closing; `fill: breathing`
    /// stretches every segment in proportion.
    @Test func fillChoosesWhereTheSpareTimeGoes() throws {
        let last = try Self.plan(Self.chain + "fill: last-segment\n", minutes: 5)
        #expect(last.schedule.cycleCounts[0] == 6)
        #expect(last.total - last.schedule.end < .seconds(20), "\(last.total - last.schedule.end)")
        #expect(last.notes.isEmpty)

        let breathing = try Self.plan(Self.chain + "fill: breathing\n", minutes: 5)
        // 270 s of breathing for 120 s written: each segment 2.25 times as long.
        #expect(breathing.schedule.segmentStarts[1] == .seconds(20 + 130))
        #expect(breathing.schedule.cycleCounts[0] == 13)
        #expect(breathing.total - breathing.schedule.end < .seconds(20))
        #expect(breathing.notes.isEmpty)
    }

    @Test func fillIsCheckedWhereItIsWritten() {
        #expect(errorText("pattern: 4-0-6-0\nfill: breathing\n")?.contains("'fill'") == true)
        #expect(errorText("segments:\n  - { pattern: 4-0-6-0, minutes: 1 }\n  - { pattern: 5-0-5-0 }\nfill: closing\n")?
            .contains("takes the rest") == true)
        #expect(errorText(Self.chain + "fill: segment\n")?.contains("last-segment") == true)
    }

    /// A bed that takes over at a minute takes over at the same fraction of a shorter session, as
    /// one given as a fraction does, with a warning.
    @Test func fromMinuteScalesInAShorterSession() throws {
        let yaml = """
            minutes: 20
            pattern: 4-7-8-0
            ambience:
              beds:
                - ocean
                - { sound: rain, from-minute: 10 }

            """
        let plan = try Self.plan(yaml, minutes: 2)
        #expect(plan.beds.count == 2)
        // The join at minute 1 of 2, the crossfade (held to a quarter of the session) about it.
        let join = (plan.beds[0].endFrame + plan.beds[1].startFrame) / 2
        #expect(join == 60 * 8000)
        #expect(plan.fitChanges.contains { $0.contains("from-minute") && $0.contains("600 → 60 s") }, "\(plan.fitChanges)")
        // At the preset's own length the minute is kept.
        let own = try Self.plan(yaml, minutes: 20)
        #expect((own.beds[0].endFrame + own.beds[1].startFrame) / 2 == 600 * 8000)
    }

    /// 200,000 bell times in a one-minute session plan in time linear in them: bells closer than
    /// a strike are merged, with a warning.
    @Test func crowdedBellsAreMergedAndSaid() throws {
        var times: [String] = []
        for i in 0..<200_000 { times.append(String(Double(i % 1000) / 1000)) }
        let yaml = "minutes: 1\npattern: 4-0-6-0\nbells: { interval: bell, at: [\(times.joined(separator: ","))] }\n"
        let plan = try Self.plan(yaml, minutes: 1)
        let bells = plan.clips.filter { $0.layer == .bells }
        // 1000 distinct times, 60 ms apart: a bell every 120 ms is left.
        #expect(bells.count == 500)
        for (a, b) in zip(bells, bells.dropFirst()) { #expect(b.startFrame - a.startFrame >= 800) }
        #expect(plan.notes.contains { $0.contains("199500 timed bells") && $0.contains("merged") }, "\(plan.notes)")
    }

    /// Holds up to 300 s for breath-retention practice; a preset's `limits` can still hold them
    /// to less.
    @Test func longHoldsUpTo300SecondsAndLimitsStillCapThem() throws {
        let plan = try RenderPlan(session: try decode("pattern: 4-90-6-0\n"), options: RenderOptions(rate: 8000, length: .cycles(2)))
        #expect(plan.schedule.filter { $0.kind == .holdIn }.map(\.length) == [.seconds(90), .seconds(90)])
        #expect(try decode("pattern: { inhale: 4, hold-out: 300, exhale: 4 }\n").segments[0].pattern[.holdOut] == .seconds(300))
        #expect(errorText("pattern: 4-301-6-0\n")?.contains("0 to 300 s") == true)
        #expect(errorText("pattern: 4-90-6-0\nlimits: { hold-in: [0, 60] }\n")?.contains("hold-in") == true)
    }

    /// A retention round: 30 quick breaths, a 90-s hold after the last exhale, a recovery breath
    /// held 15 s, three rounds over.
    @Test func aRetentionRoundRepeats() throws {
        let yaml = """
            cycles: 96
            settle: 10
            closing: 30
            segments:
              - { name: Breaths, pattern: 1.5-0-1.5-0, cycles: 30 }
              - { name: Retention, pattern: 0-0-0-90, cycles: 1 }
              - { name: Recovery, pattern: 2-15-2-0, cycles: 1 }
            rounds: 3

            """
        let session = try decode(yaml)
        #expect(session.segments.count == 9)
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .cycles(96)))
        #expect(plan.schedule.cycleCounts == [30, 1, 1, 30, 1, 1, 30, 1, 1])
        #expect(plan.total == .seconds(10 + 3 * (90 + 90 + 19) + 30))
        let holds = plan.schedule.filter { $0.kind == .holdOut }
        #expect(holds.map(\.length) == [.seconds(90), .seconds(90), .seconds(90)])
        // Each hold follows its round's last quick exhale; each round starts 199 s after the last.
        #expect(holds.map(\.start) == [.seconds(100), .seconds(299), .seconds(498)])
        #expect(plan.sections.map(\.name).contains("Retention (round 2)"))
        #expect(errorText("segments:\n  - { pattern: 4-0-4-0, cycles: 2 }\n  - { pattern: 4-0-6-0 }\nrounds: 2\n")?
            .contains("with 'rounds', every segment has a length") == true)
        #expect(errorText("pattern: 4-0-4-0\nrounds: 2\n")?.contains("'rounds' repeats") == true)
    }

    /// A lead-in before the first breath: ticks on the last seconds of the settle, or a spoken
    /// count, each number on its second.
    @Test func aLeadInCountsDownToTheFirstBreath() throws {
        let ticks = try Self.plan("pattern: 4-0-6-0\nsettle: 20\nbells: { lead-in: 3 }\n", minutes: 10)
        let tickFrames = ticks.clips.filter { if case .countdown = $0.sound { true } else { false } }.map(\.startFrame)
        #expect(tickFrames == [Int64(136_000), 144_000, 152_000])
        #expect(ticks.schedule.start == .seconds(20))

        let spoken = try Self.plan("pattern: 4-0-6-0\nsettle: 20\nvoice: { lead-in: [voice-hold, voice-breathe-in, voice-breathe-out] }\n", minutes: 10)
        let voice = spoken.clips.filter { $0.layer == .voice }
        #expect(voice.map(\.startFrame) == [Int64(136_000), 144_000, 152_000])
        let expected: [ClipEvent.Sound] = ["voice-hold", "voice-breathe-in", "voice-breathe-out"].map { .file(SoundRef($0)) }
        #expect(voice.map(\.sound) == expected)
        #expect(voice.allSatisfy { $0.maximumFrames == 8000 })
        #expect(try decode("pattern: 4-0-6-0\nvoice: { lead-in: [voice-hold] }\n").soundsUsed.contains(SoundRef("voice-hold")))

        // With no settle to count in, a preset as written says so.
        #expect(throws: PlanError.self) {
            _ = try Self.plan("minutes: 2\npattern: 4-0-6-0\nsettle: 1\nvoice: { lead-in: [voice-hold, voice-hold] }\n", minutes: 2)
        }
        #expect(errorText("pattern: 4-0-6-0\nbells: { lead-in: 11 }\n")?.contains("lead-in") == true)
    }

    /// A chained session changes its cues, speaks and changes its bed at a segment.
    @Test func segmentsCarryTheirOwnCuesVoiceAndAmbience() throws {
        let yaml = """
            minutes: 10
            settle: 20
            closing: 30
            cues:
              inhale: { tone: bell, pitch: 660 }
            ambience: [rain]
            segments:
              - { name: Warm, pattern: 4-0-6-0, minutes: 2 }
              - name: Slow
                pattern: 5-0-5-0
                cues: { inhale: { tone: bowl, pitch: 220 }, exhale: none }
                voice: voice-hold
                ambience: { sound: ocean, level: -30 }

            """
        let session = try decode(yaml)
        #expect(session.soundsUsed.contains(SoundRef("ocean")) && session.soundsUsed.contains(SoundRef("voice-hold")))
        let plan = try Self.plan(yaml, minutes: 10)
        let slowStart = plan.schedule.segmentStarts[1]
        #expect(slowStart == .seconds(140))
        // The cues: the session's in the first segment, the segment's own in the second.
        var firstInhale: [Int: Double] = [:]
        var exhaleCues: [Int: Int] = [:]
        for phase in plan.schedule {
            let event = plan.cueEvent(for: phase)
            if phase.kind == .inhale, firstInhale[phase.segment] == nil {
                let cue = plan.cues.first { $0.kind == .inhale && $0.segment == (phase.segment == 1 ? 1 : nil) }
                firstInhale[phase.segment] = cue?.sound.pitchHertz
                #expect(event != nil)
            }
            if phase.kind == .exhale, event != nil { exhaleCues[phase.segment, default: 0] += 1 }
        }
        #expect(firstInhale == [0: 660, 1: 220])
        #expect(exhaleCues[0] == 12 && exhaleCues[1] == nil)
        // The voice on the segment's first frame; the ocean taking over about it.
        #expect(plan.clips.contains { $0.layer == .voice && $0.sound == .file(SoundRef("voice-hold")) && $0.startFrame == 140 * 8000 })
        #expect(plan.beds.map(\.sound) == [SoundRef("rain"), SoundRef("ocean")])
        #expect((plan.beds[0].endFrame + plan.beds[1].startFrame) / 2 == 140 * 8000)

        #expect(errorText("ambience: [rain, ocean]\nsegments:\n  - { pattern: 4-0-6-0, minutes: 1 }\n  - { pattern: 5-0-5-0, ambience: rain }\n")?
            .contains("either in 'ambience'") == true)
        #expect(errorText("segments:\n  - { pattern: 4-0-6-0, minutes: 1 }\n  - { pattern: 5-0-5-0, ambience: rain }\n")?
            .contains("nothing plays before it") == true)
        #expect(errorText("segments:\n  - { pattern: 4-0-6-0, cues: { inhale: { tone: gong } } }\n")?.contains("gong") == true)
    }
}
