import MedrenderCore
import MedrenderPresets
import Testing

/// `ShortSessionFit` on its own, with every expected value worked out by hand from the rules in
/// its doc comment (not computed by calling it).
@Suite struct ShortSessionFitTests {
    /// wind-down as the stock library writes it: three chained segments, 15 minutes.
    static let windDown = """
        name: wind-down
        minutes: 15
        segments:
          - { name: Energize, pattern: 6-0-2-0, minutes: 3 }
          - { name: Box, pattern: 4-4-4-4, minutes: 5 }
          - { name: Relax, pattern: 4-7-8-0 }
        settle: 20
        closing: 30
        ambience:
          beds:
            - { sound: rain, level: -27 }
          fade-in: 8
          fade-out: 20
        """

    static func session(_ yaml: String) throws -> Session {
        try PresetDecoder.decode(yaml, file: "fit.yaml", defaultName: "fit")
    }

    @Test func atThePresetsOwnLengthAndLongerNothingChanges() throws {
        let original = try Self.session(Self.windDown)
        for minutes in [15, 40] {
            let fit = ShortSessionFit(session: original, total: .seconds(Int64(minutes) * 60))
            #expect(fit.adapted == false)
            #expect(fit.changes.isEmpty && fit.notes.isEmpty)
            #expect(fit.session.settle == .seconds(20) && fit.session.closing == .seconds(30))
            #expect(fit.session.segments.count == 3)
        }
    }

    /// One minute of wind-down. Settle + closing (50 s) exceed a third of 60 s (20 s): they shrink
    /// in proportion, 20·20/50 = 8 s and 30·20/50 = 12 s. Breathing gets 40 s of the nominal
    /// 900 − 50 = 850 s, k = 40/850: Energize 180 s → 8.471 s (above its 8-s cycle), Box 300 s →
    /// 14.118 s, raised to its 16-s cycle. 8.471 + 16 + Relax's 19-s cycle = 43.471 s > 40 s, so
    /// Relax is left out and Box, now last, takes the rest. Fades are held to 15 s: the ambience's
    /// 20-s fade-out shrinks; its 8-s fade-in, the 10-s crossfade and the master's 0/3 s stay.
    @Test func oneMinuteOfAChainedPreset() throws {
        let fit = ShortSessionFit(session: try Self.session(Self.windDown), total: .seconds(60))
        #expect(fit.adapted)
        #expect(fit.session.settle == .seconds(8))
        #expect(fit.session.closing == .seconds(12))
        #expect(fit.session.segments.map(\.name) == ["Energize", "Box"])
        #expect(fit.session.segments[0].span == .duration(SessionTime(milliseconds: 8471)))
        #expect(fit.session.segments[1].span == nil)
        #expect(fit.session.ambienceFadeIn == .seconds(8))
        #expect(fit.session.ambienceFadeOut == .seconds(15))
        #expect(fit.changes == [
            "the 1 min session is shorter than the preset's 15 min: settle 20 → 8 s, closing 30 → 12 s",
            "shortened in proportion to the breathing time there is: Energize 180 s → 8.471 s, Box 300 s → 16 s",
            "fades held to a quarter of the session: ambience fade-out 20 → 15 s",
        ])
        #expect(fit.notes == ["the session is too short for the segment Relax: left out"])
    }

    /// Settle and closing keep their minimums (2 s, 3 s) while a cycle still fits, then give way to
    /// one whole cycle. 12 s of a 4-4-4-4 session with settle 60, closing 120: a third is 4 s, the
    /// shares 1.333 s and 2.667 s are raised to 2 s and 3 s; 12 − 5 = 7 s is less than a 16-s cycle
    /// and 12 − 16 < 0, so there is no room: settle and closing are 0.
    @Test func settleAndClosingGiveWayToOneCycle() throws {
        let yaml = "name: x\nminutes: 15\npattern: 4-4-4-4\nsettle: 60\nclosing: 120\n"
        let twelve = ShortSessionFit(session: try Self.session(yaml), total: .seconds(12))
        #expect(twelve.session.settle == .zero && twelve.session.closing == .zero)

        // 30 s: a third is 10 s; shares 3.333 s and 6.667 s; 30 − 10 = 20 s holds a 16-s cycle.
        let thirty = ShortSessionFit(session: try Self.session(yaml), total: .seconds(30))
        #expect(thirty.session.settle == SessionTime(milliseconds: 3333))
        #expect(thirty.session.closing == SessionTime(milliseconds: 6667))
        #expect(thirty.changes.first == "the 0.5 min session is shorter than the preset's 15 min: settle 60 → 3.333 s, closing 120 → 6.667 s")
    }

    /// An explicit settle and closing are kept while they fit in a third: 5 minutes of a 15-minute
    /// preset with settle 20 and closing 30 (50 s ≤ 100 s) changes neither.
    @Test func whatFitsInAThirdIsKept() throws {
        let yaml = "name: x\nminutes: 15\npattern: 4-4-4-4\nsettle: 20\nclosing: 30\n"
        let fit = ShortSessionFit(session: try Self.session(yaml), total: .seconds(300))
        #expect(fit.session.settle == .seconds(20) && fit.session.closing == .seconds(30))
        #expect(fit.changes.isEmpty)
    }

    /// A bed taking over at minute 10 of a 20-minute preset, in a 2-minute session, takes over at
    /// the same fraction of it: 600 s · 120/1200 = 60 s.
    @Test func aBedFromAMinutePastTheEndScales() throws {
        let yaml = """
            name: x
            minutes: 20
            pattern: 4-0-6-0
            ambience:
              beds:
                - { sound: rain, level: -27 }
                - { sound: ocean, level: -27, from-minute: 10 }
            """
        let fit = ShortSessionFit(session: try Self.session(yaml), total: .seconds(120))
        #expect(fit.session.ambience.map(\.from) == [nil, .time(.seconds(60))])
        #expect(fit.changes.contains("the beds' 'from-minute' past the end of the 2 min session scaled to it: 'ocean' from 600 → 60 s"))
    }
}
