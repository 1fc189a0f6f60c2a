import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

func decode(_ yaml: String) throws(PresetError) -> Session {
    try PresetDecoder.decode(yaml, file: "p.yaml", defaultName: "p")
}

/// The error decoding `yaml` gives, as one line.
func errorText(_ yaml: String) -> String? {
    do {
        _ = try decode(yaml)
        return nil
    } catch {
        #expect(error.category == .badData)
        return error.description
    }
}

@Suite struct PresetDecoderTests {
    @Test func minimalPresetTakesDefaults() throws {
        let s = try decode("pattern: 4-7-8-0\n")
        #expect(s.name == "p")
        #expect(s.segments == [PatternSegment(pattern: BreathPattern(milliseconds: 4000, 7000, 8000, 0))])
        #expect(s.settle == .seconds(20))
        #expect(s.master.loudnessLUFS == -18)
        #expect(s.ambience.isEmpty)
    }

    @Test func patternForms() throws {
        #expect(try decode("pattern: 5.5-0-5.5-0").segments[0].pattern == BreathPattern(milliseconds: 5500, 0, 5500, 0))
        #expect(try decode("pattern: 4-4-4").segments[0].pattern == BreathPattern(milliseconds: 4000, 4000, 4000, 0))
        #expect(try decode("pattern: 1-0.5-0.5-3-0").segments[0].pattern
                == BreathPattern(milliseconds: 1000, 500, 3000, 0, topUp: 500))
        #expect(try decode("pattern: { inhale: 4, exhale: 6 }").segments[0].pattern == BreathPattern(milliseconds: 4000, 0, 6000, 0))
        // Prana-style ratio × unit: 1:4:2:0 × 2 s.
        #expect(try decode("pattern: { ratio: '1:4:2:0', unit: 2 }").segments[0].pattern
                == BreathPattern(milliseconds: 2000, 8000, 4000, 0))
        #expect(try decode("pattern: { ratio: '1:2:1.5', unit: 1.5 }").segments[0].pattern
                == BreathPattern(milliseconds: 1500, 3000, 2250, 0))
    }

    @Test func segmentsAndRamps() throws {
        let s = try decode("""
            segments:
              - { name: Wake, pattern: 6-0-2-0, minutes: 5 }
              - pattern: 4-4-4-4
                cycles: 10
              - pattern: 4-0-4-0
                ramp: { to: 4-0-8-0, minutes: 10, curve: ease-in-out }
            """)
        #expect(s.segments.count == 3)
        #expect(s.segments[0].name == "Wake")
        #expect(s.segments[0].span == .duration(.seconds(300)))
        #expect(s.segments[1].span == .cycles(10))
        #expect(s.segments[2].span == nil)
        #expect(s.segments[2].ramp == PatternRamp(target: BreathPattern(milliseconds: 4000, 0, 8000, 0),
                                                  span: .duration(.seconds(600)), curve: .easeInOut))
    }

    @Test(arguments: [
        // (yaml, what the message must say)
        ("pattern: 4-4-4-4\nminuts: 10\n", "p.yaml:2:1: minuts: unknown key 'minuts'; did you mean 'minutes'?"),
        ("pattern: 4-4-4-4\nsettle: [1, 2\n", "p.yaml:3:1: is not valid YAML"),
        ("pattern: 4-4-x-4\n", "p.yaml:1:10: pattern: 'x' in '4-4-x-4' is not a number of seconds"),
        ("pattern: 4-4\n", "'4-4' is not a pattern"),
        ("pattern: 4-4-4-4-4-4\n", "is not a pattern"),
        ("pattern: -4-4-4-4\n", "is not a pattern"),
        ("pattern: { inhale: 370, exhale: 4 }\n", "p.yaml:1:20: pattern.inhale: 370 s is out of range; use 0 to 300 s"),
        ("pattern: { inhale: -1, exhale: 4 }\n", "-1 s is out of range"),
        ("pattern: { inhale: .nan, exhale: 4 }\n", "not a finite number"),
        ("pattern: { inhale: .inf, exhale: 4 }\n", "not a finite number"),
        ("pattern: { inhale: 1e300, exhale: 4 }\n", "out of range"),
        ("pattern: { inhale: four, exhale: 4 }\n", "expected a number (s) from 0 to 300, found 'four'"),
        ("pattern: { inhal: 4, exhale: 4 }\n", "unknown key 'inhal'; did you mean 'inhale'?"),
        ("pattern: 0-0-0-0\n", "a cycle of 0 s is too short"),
        ("pattern: 0.2-0-0.3-0\n", "a cycle of 0.5 s is too short; a cycle must last at least 1 s"),
        ("minutes: 10\n", "missing 'pattern'"),
        ("just text\n", "a preset is a YAML mapping"),
        ("segments:\n  - { pattern: 4-4-4-4, minutes: 0.01 }\n  - { pattern: 4-0-4-0 }\n",
         "segments[0].minutes: 0.6 s is shorter than one 16 s cycle of segment 1; give at least 0.27 min or use 'cycles'"),
        ("pattern: 4-4-4-4\nbells: { every: 1 }\n", "bells.every: the timed bells have no sound; give 'interval'"),
        ("pattern: 4-4-4-4\nbells: { interval: bell, every: 0 }\n",
         "bells.every: 0 min of breathing, counted from the first breath is out of range; use 0.1 to 1440"),
        ("pattern: 4-4-4-4\nbells: { interval: bell, at: [5, 2000] }\n",
         "bells.at[1]: 2000 min from the start of the file is out of range; use 0 to 1440"),
        ("pattern: 4-4-4-4\nxq: 1\n", "p.yaml:2:1: xq: unknown key 'xq'; allowed here: name, description"),
        ("pattern: 4-4-4-4\nambience: [ { sound: rain, from: 0.5 }, { sound: ocean, from: 0.2 } ]\n",
         "p.yaml:2:13: ambience[0]: the first bed plays from the start"),
        ("pattern: 4-4-4-4\nseed: 1\nseed: 2\n", "p.yaml:3:1: the key seed appears twice; keep one"),
        ("pattern: 4-4-4-4\n---\npattern: 4-0-4-0\n", "p.yaml:2:1: holds a second YAML document (after a '---' line)"),
        ("a: " + String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000) + "\n", "is nested too deeply to be a preset"),
        ("pattern: 4-4-4-4\nbells: { start: ~ }\n", "p.yaml:2:17: bells.start: expected a sound (a name from Sounds/, or a path to a sound file), found nothing"),
        ("pattern: 4-4-4-4\nambience: [' ']\n", "the sound's name is empty"),
        ("pattern: 4-4-4-4\nseed: 2147483648\n", "seed: 2147483648 is out of range; use 0 to 2147483647"),
        ("pattern: 4-4-4-4\nname: \"two\\nlines\"\n", "p.yaml:2:7: name: contains a control character (a line break or a tab)"),
        ("segments:\n  - { name: \"a\\tb\", pattern: 4-4-4-4 }\n", "name: contains a control character"),
        ("pattern: 4-4-4-4\nname: ' '\n", "name: is empty; give a name"),
        ("pattern: 4-4-4-4\nmetadata: { title: \(String(repeating: "x", count: 1025)) }\n",
         "metadata.title: is 1025 bytes of text; a tag takes at most 1024"),
        ("pattern: 4-4-4-4\ndescription: \(String(repeating: "é", count: 600))\n", "description: is 1200 bytes of text"),
        ("- a\n- b\n", "a preset is a YAML mapping"),
        ("", "is empty"),
        ("pattern: 4-4-4-4\nminutes: 0\n", "minutes: 0 min is out of range; use 0.05 to 1440 min"),
        ("pattern: 4-4-4-4\nminutes: 2000\n", "out of range"),
        ("pattern: 4-4-4-4\nminutes: 5\ncycles: 3\n", "give 'minutes' or 'cycles', not both"),
        ("pattern: 4-4-4-4\ncycles: 2.5\n", "expected a whole number"),
        ("pattern: 4-4-4-4\nsegments: []\n", "give 'segments' or 'pattern', not both"),
        ("segments: []\n", "'segments' is empty"),
        ("segments:\n  - { pattern: 4-4-4-4 }\n  - { pattern: 4-0-4-0 }\n", "segment 1 needs 'minutes' or 'cycles'"),
        ("segments:\n  - { minutes: 3 }\n", "missing 'pattern' in segment 1"),
        ("pattern: 4-0-4-0\nramp: { to: 4-0-8-0 }\n", "missing 'minutes' or 'cycles'"),
        ("pattern: 4-0-4-0\nramp: { minutes: 3 }\n", "missing 'to'"),
        ("pattern: 4-0-4-0\nramp: { to: 4-0-380-0, minutes: 3 }\n", "each phase must be 0 to 300 s"),
        ("pattern: 4-0-4-0\nramp: { to: 0.1-0-0.1-0, minutes: 3 }\n", "too short"),
        ("pattern: 4-0-4-0\nramp: { to: 4-0-8-0, minutes: 3, curve: wobbly }\n", "unknown ramp curve 'wobbly'"),
        ("pattern: { ratio: '1:4:2:0' }\n", "missing 'unit'"),
        ("pattern: { ratio: '1:x:2:0', unit: 2 }\n", "'x' in '1:x:2:0' is not a ratio part"),
        ("pattern: { ratio: '1:200:2:0', unit: 2 }\n", "each phase must be 0 to 300 s"),
        ("pattern: 4-0-6-0\nlimits: { inhale: [2, 12], exhale-over-inhale: 3 }\n", "must be at least 3 s longer than the inhale"),
        ("pattern: 1-0-6-0\nlimits: { inhale: [2, 12] }\n", "inhale of 1 s is outside this preset's 2–12 s"),
        ("pattern: 4-0-6-0\nlimits: { inhale: [12, 2] }\n", "is more than the most"),
        ("pattern: 4-0-6-0\nlimits: { inhale: 2 }\n", "expected a list"),
        ("pattern: 4-0-6-0\ncues: { inhale: { tone: chime } }\n", "unknown tone 'chime'"),
        ("pattern: 4-0-6-0\ncues: { inhale: { tone: bell, pitch: 10 } }\n", "10 Hz is out of range; use 50 to 4000 Hz"),
        ("pattern: 4-0-6-0\ncues: { inhale: { tone: bell, sound: bell } }\n", "give 'tone' or 'sound', not both"),
        ("pattern: 4-0-6-0\ncues: { breathe: { tone: bell } }\n", "unknown key 'breathe'"),
        ("pattern: 4-0-6-0\nvoice: { intro: [a, b] }\n", "voice.intro: expected a sound (a name from Sounds/, or a path to a sound file), found a list"),
        ("pattern: 4-0-6-0\nambience: [{ level: -20 }]\n", "missing 'sound'"),
        ("pattern: 4-0-6-0\nambience: [{ sound: rain, level: 5 }]\n", "5 LUFS is out of range"),
        ("pattern: 4-0-6-0\nmaster: { loudness: -80 }\n", "-80 LUFS is out of range; use -70 to -5 LUFS"),
        ("pattern: 4-0-6-0\nmaster: { fade-curve: cubic }\n", "unknown fade curve 'cubic'"),
        ("pattern: 4-0-6-0\nseed: -1\n", "seed"),
        ("pattern: 4-4-4-4\npattern: 4-4-4-4\n", "p.yaml"),
    ] as [(String, String)])
    func everyValidationErrorSaysWhatWhereAndHow(yaml: String, message: String) {
        let text = errorText(yaml)
        #expect(text != nil, "expected an error for: \(yaml)")
        #expect(text?.contains(message) == true, "\(text ?? "no error") should contain \(message)")
        #expect(text?.hasPrefix("p.yaml") == true)
    }

    @Test func missingFileIsNoInput() {
        #expect {
            try PresetDecoder.load(path: "/nonexistent/x.yaml")
        } throws: { ($0 as? PresetError)?.category == .missingInput }
    }

    @Test func libraryFindsPresetsByNameAndSuggestsNames() throws {
        let library = PresetLibrary(root: PackagePaths.root)
        #expect(try library.presetPath("box-breath").hasSuffix("Presets/box-breath.yaml"))
        #expect {
            try library.presetPath("box-breth")
        } throws: { "\($0)".contains("did you mean 'box-breath'") }
        #expect(library.soundPath(SoundRef("rain"), presetFile: nil)?.hasSuffix("Sounds/rain.ogg") == true)
        #expect(library.soundPath(SoundRef("no-such-sound"), presetFile: nil) == nil)
    }

    @Test func everyShippedPresetDecodesWithADescription() throws {
        let library = PresetLibrary(root: PackagePaths.root)
        let files = library.presetFiles()
        #expect(files.count >= 3)
        for file in files {
            let session = try PresetDecoder.load(path: file)
            #expect(!session.description.isEmpty, "\(file) has a description")
            #expect(session.limitViolation == nil)
            for ref in session.soundsUsed {
                #expect(library.soundPath(ref, presetFile: file) != nil, "\(file): sound \(ref) exists")
            }
        }
    }
}
