import MedrenderCore
import MedrenderPresets
import Testing

@Suite struct BeatsDecoderTests {
    @Test func aTimelineCarriesValuesAndCurves() throws {
        let s = try decode("""
            pattern: 4-0-6-0
            beats:
              kind: binaural
              beat: 10
              carrier: 180
              timeline:
                - { at: breathing }
                - { at: closing, beat: 4, curve: half-cosine }
                - { at: end, beat: 2, gain: -36 }
            """)
        let beats = try #require(s.beats)
        #expect(beats.kind == .binaural)
        #expect(beats.points.map(\.at) == [.time(.zero), .breathing, .closing, .end])
        #expect(beats.points.map(\.beatHertz) == [10, 10, 4, 2])
        #expect(beats.points.map(\.carrierHertz) == [180, 180, 180, 180])
        #expect(beats.points.map(\.gainDecibels) == [-30, -30, -30, -36])
        #expect(beats.points[2].curve == .halfCosine && beats.points[3].curve == .linear)
        #expect(beats.points[2].location == ScriptLocation(file: "p.yaml", line: 8, column: 7))
    }

    @Test func followBreath() throws {
        let s = try decode("pattern: 5.5-0-5.5-0\nbeats: { kind: isochronic, follow: breath, low: 6, high: 10, carrier: 300 }\n")
        #expect(s.beats?.follow == BreathBeat(lowHertz: 6, highHertz: 10, curve: .halfCosine))
        #expect(s.beats?.kind == .isochronic)
    }

    @Test(arguments: [
        ("beats: { beat: 0.3 }", "p.yaml:2:16: beats.beat: 0.3 Hz is out of range; use 0.5 to 40 Hz"),
        ("beats: { beat: 41 }", "p.yaml:2:16: beats.beat: 41 Hz is out of range; use 0.5 to 40 Hz"),
        ("beats: { carrier: 2000 }", "p.yaml:2:19: beats.carrier: 2000 Hz is out of range; use 40 to 1500 Hz"),
        ("beats: { carrier: 30 }", "p.yaml:2:19: beats.carrier: 30 Hz is out of range; use 40 to 1500 Hz"),
        ("beats:\n  timeline:\n    - { at: 60, beat: 50 }", "p.yaml:4:23: beats.timeline[0].beat: 50 Hz is out of range; use 0.5 to 40 Hz"),
        ("beats: { kind: binaurl }", "p.yaml:2:16: beats.kind: unknown beats kind 'binaurl' (did you mean 'binaural'?)"),
        ("beats: { follow: breath, low: 10, high: 6 }", "p.yaml:2:41: beats.high: 'high' (6 Hz) must be more than 'low' (10 Hz)"),
        ("beats: { follow: breath }", "p.yaml:2:18: beats.follow: 'follow: breath' needs 'low' and 'high'"),
        ("beats:\n  timeline:\n    - { at: middle }", "p.yaml:4:13: beats.timeline[0].at: unknown place 'middle'"),
    ])
    func badValuesSayWhereAndWhat(extra: String, expected: String) {
        let text = errorText("pattern: 4-0-6-0\n" + extra + "\n")
        #expect(text?.hasPrefix(expected) == true, "\(text ?? "no error")")
    }

    @Test func aBeatTooFastForItsCarrierSaysWhatCarrierWouldDo() {
        // 30 Hz on a 50 Hz carrier puts the left ear at 35 Hz, under the 40 Hz the ears are given.
        let text = errorText("pattern: 4-0-6-0\nbeats: { carrier: 50, beat: 30 }\n")
        #expect(text?.hasPrefix("p.yaml:2:29: beats.beat: a 30 Hz beat on a 50 Hz carrier puts the lower tone at 35 Hz, below 40 Hz; "
            + "use a carrier of at least 55 Hz") == true, "\(text ?? "no error")")
        let high = errorText("pattern: 4-0-6-0\nbeats:\n  timeline:\n    - { at: 60, carrier: 1495, beat: 20 }\n")
        #expect(high?.hasPrefix("p.yaml:4:38: beats.timeline[0].beat: a 20 Hz beat on a 1495 Hz carrier puts the upper tone at 1505 Hz") == true,
                "\(high ?? "no error")")
    }

    @Test func aPointAfterTheSessionNamesItsLine() throws {
        let s = try decode("pattern: 4-0-6-0\nbeats:\n  timeline:\n    - { at: 30, beat: 8 }\n    - { at: 400, beat: 4 }\n")
        do {
            _ = try RenderPlan(session: s, options: RenderOptions(rate: 8000, length: .duration(.seconds(300))))
            Issue.record("no error")
        } catch {
            #expect(error.description.hasPrefix("p.yaml:5:7: beats timeline point 2 at 400 s is after the end of the 300 s session"),
                    "\(error.description)")
        }
    }
}

@Suite struct GeneratedBedDecoderTests {
    @Test func aGeneratorBed() throws {
        let s = try decode("pattern: 4-0-6-0\nambience:\n  - { generator: brown, level: -30 }\n")
        #expect(s.ambience.first?.generator == .brown)
        #expect(s.ambience.first?.levelLUFS == -30)
        #expect(s.soundsUsed.isEmpty)
    }

    @Test func anUnknownColourSuggestsOne() {
        let text = errorText("pattern: 4-0-6-0\nambience:\n  - { generator: pinkk }\n")
        #expect(text?.hasPrefix("p.yaml:3:18: ambience[0].generator: unknown generator 'pinkk' (did you mean 'pink'?); choose one of: white, pink, brown") == true,
                "\(text ?? "no error")")
        let both = errorText("pattern: 4-0-6-0\nambience:\n  - { generator: pink, sound: rain }\n")
        #expect(both?.contains("give 'generator' or 'sound', not both") == true, "\(both ?? "no error")")
    }
}

@Suite struct GeneratedAmbienceDecoderTests {
    @Test(arguments: BedGenerator.allCases)
    func everyGeneratorDecodes(generator: BedGenerator) throws {
        let s = try decode("pattern: 4-0-6-0\nambience:\n  - { generator: \(generator.rawValue), level: -30 }\n")
        #expect(s.ambience.first?.generator == generator)
        #expect(s.ambience.first?.sound.name == generator.displayName)
        #expect(s.soundsUsed.isEmpty)
    }

    @Test func aMisspelledAmbienceSuggestsOneAndTheLoopStaysASound() throws {
        let text = errorText("pattern: 4-0-6-0\nambience:\n  - { generator: oceen }\n")
        #expect(text?.hasPrefix("p.yaml:3:18: ambience[0].generator: unknown generator 'oceen' (did you mean 'ocean'?); choose one of: white, pink, brown, grey, rain, ocean, stream, wind") == true,
                "\(text ?? "no error")")
        let looped = try decode("pattern: 4-0-6-0\nambience:\n  - { sound: rain }\n")
        #expect(looped.ambience.first?.generator == nil)
        #expect(looped.soundsUsed.contains(SoundRef("rain")))
    }
}
