import MedrenderPresets
import Testing

/// Every error of a preset at once, and the outline the studio's form reads.
@Suite struct PresetOutlineTests {
    @Test func everyErrorIsFoundInTurnAtItsLine() {
        let yaml = """
            pattern: 4-x-4-4
            minutes: -3
            cues:
              exhale: { tone: bell, gain: 40 }
            master:
              loudness: 9

            """
        let errors = PresetDecoder.allErrors(yaml, file: "p.yaml", defaultName: "p")
        // The pattern's error first (then a placeholder pattern), and a `cues:` left with nothing
        // under it is not an error of the preset as written.
        #expect(errors.map(\.line) == [1, 2, 4, 6], "\(errors)")
        #expect(errors.map(\.field) == ["pattern", "minutes", "cues.exhale.gain", "master.loudness"], "\(errors)")
        #expect(PresetDecoder.allErrors("pattern: 4-4-4-4\nminutes: 3\n", file: "p.yaml", defaultName: "p").isEmpty)
        // Broken YAML is one error: nothing after it can be read.
        #expect(PresetDecoder.allErrors("pattern: [4\nminutes: -1\n", file: "p.yaml", defaultName: "p").count == 1)
        #expect(PresetDecoder.allErrors(yaml, file: "p.yaml", defaultName: "p", limit: 2).count == 2)
    }

    @Test func theOutlineGivesEachValueItsPlaceAndStyle() throws {
        let yaml = """
            cues:
              inhale: { tone: bell, pitch: 440 }
            guide:
              lines:
                - say: "Welcome."
                  pause: 3
                - clip: voice-hold
            list: [1, 'two']

            """
        let entries = try #require(PresetOutline.entries(yaml))
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0.path, $0) })
        #expect(byPath["cues"]?.style == "block" && byPath["cues"]?.kind == "mapping")
        #expect(byPath["cues.inhale"]?.style == "flow" && byPath["cues.inhale"]?.count == 2)
        let pitch = try #require(byPath["cues.inhale.pitch"])
        #expect(pitch.value == "440" && pitch.line == 2 && pitch.column == 32 && pitch.inFlow == true)
        #expect(byPath["guide.lines"]?.kind == "list" && byPath["guide.lines"]?.count == 2)
        let say = try #require(byPath["guide.lines[0].say"])
        #expect(say.value == "Welcome." && say.style == "double" && say.line == 5 && say.column == 12 && say.inFlow == nil)
        #expect(byPath["guide.lines[0].pause"]?.line == 6)
        #expect(byPath["guide.lines[1].clip"]?.value == "voice-hold")
        #expect(byPath["list"]?.style == "flow" && byPath["list[1]"]?.style == "single" && byPath["list[1]"]?.value == "two")
        #expect(PresetOutline.entries("pattern: [4\n") == nil)
    }
}
