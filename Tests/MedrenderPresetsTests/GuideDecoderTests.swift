import MedrenderCore
import MedrenderPresets
import Testing

/// `guide:` and `language:` decode, and a bad line is a one-line error at its line and column.
@Suite struct GuideDecoderTests {
    static func decode(_ guide: String, extra: String = "") throws(PresetError) -> Session {
        try PresetDecoder.decode("pattern: 4-0-6-0\n\(extra)guide:\n" + guide, file: "g.yaml", defaultName: "g")
    }

    @Test func aScriptDecodesEveryKindOfLine() throws {
        let session = try Self.decode("""
              voice: { engine: espeak-ng, name: de }
              lines:
                - say: "Willkommen."
                - say: "Atme."
                  pause: 2.5
                - say: "Weiter."
                  pause: { min: 4, weight: 3 }
                - clip: voice-hold
                  text: "Halten."
                  on: { cycle: 3, phase: hold-in }
                - say: "Ende."
                  during: closing
                - say: "Zeit."
                  at: 90
            """, extra: "language: de\nminutes: fit\n")
        #expect(session.language.tag == "de")
        #expect(session.fitsGuide)
        let script = try #require(session.guide)
        #expect(script.voice == GuideVoice(engine: .espeakNG, name: "de"))
        #expect(script.lines.map(\.text) == ["Willkommen.", "Atme.", "Weiter.", "Halten.", "Ende.", "Zeit."])
        #expect(script.lines[0].start == .after(GuideLine.defaultPause))
        #expect(script.lines[1].start == .after(SessionTime(milliseconds: 2500)))
        #expect(script.lines[2].start == .elastic(minimum: .seconds(4), weight: 3))
        #expect(script.lines[3].start == .on(cycle: 3, phase: .holdIn))
        #expect(script.lines[3].content == .clip(SoundRef("voice-hold"), text: "Halten."))
        #expect(script.lines[4].during == .closing)
        #expect(script.lines[5].start == .at(.seconds(90)))
        #expect(script.lines[0].location == ScriptLocation(file: "g.yaml", line: 7, column: 7))
        #expect(session.soundsUsed.contains(SoundRef("voice-hold")))
    }

    @Test(arguments: [
        ("  lines:\n    - say: \"\"\n", "g.yaml:4:12: guide.lines[0].say: the text is empty"),
        ("  lines:\n    - say: hi\n      clip: bell\n", "g.yaml:5:13: guide.lines[0].clip: give 'say'"),
        ("  lines:\n    - say: hi\n      at: 3\n      pause: 1\n", "g.yaml:5:11: guide.lines[0].at: a line placed by 'at' or 'on' takes no 'pause'"),
        ("  voice: { engine: espeak }\n  lines:\n    - say: hi\n", "g.yaml:3:20: guide.voice.engine: unknown speech engine 'espeak'; choose one of: festival, espeak-ng, flite, piper, command"),
        ("  lines:\n    - say: hi\n      on: { cycle: 2 }\n", "'on' needs 'cycle' and 'phase'"),
        ("  lines:\n    - say: hi\n      pause: { min: 1, weight: 0 }\n", "is out of range"),
        ("  lines:\n    - say: \(String(repeating: "a", count: 2001))\n", "is 2001 characters; a line takes at most 2000"),
        ("  lines: []\n", "is empty; give at least one line"),
        ("  lines:\n    - say: hi\n      rest: -2\n", "g.yaml:5:13: guide.lines[0].rest: -2 s is out of range; use 0 to 3600 s"),
        ("  lines:\n    - say: hi\n      rest: long\n", "g.yaml:5:13: guide.lines[0].rest: expected a number (s) from 0 to 3600, found 'long'"),
        ("  lines:\n    - say: hi\n      rest: { min: 4, wieght: 2 }\n", "g.yaml:5:23: guide.lines[0].rest.wieght: unknown key 'wieght'; did you mean 'weight'?"),
        ("  lines:\n    - say: hi\n      rest: { min: 4000 }\n", "g.yaml:5:20: guide.lines[0].rest.min: 4000 s is out of range; use 0 to 3600 s"),
        ("  lines:\n    - say: hi\n      rest: { weight: 0 }\n", "g.yaml:5:23: guide.lines[0].rest.weight: 0 is out of range"),
    ])
    func aBadLineIsOneLineAtItsPlace(yaml: String, message: String) throws {
        do {
            _ = try Self.decode(yaml)
            Issue.record("decoded")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aLineTakesARestAfterItFixedOrElasticBesideItsPauseBefore() throws {
        let session = try Self.decode("""
              lines:
                - say: "Breathe out, and rest here."
                  pause: 2
                  rest: 8.5
                - say: "Again."
                  pause: { min: 3, weight: 2 }
                  rest: { min: 10, weight: 3 }
                - say: "Only the breath."
                  at: 60
                  rest: { min: 4 }
                - say: "Welcome back."
            """)
        let lines = try #require(session.guide).lines
        #expect(lines[0].start == .after(.seconds(2)))
        #expect(lines[0].rest == .fixed(SessionTime(milliseconds: 8500)))
        #expect(lines[1].start == .elastic(minimum: .seconds(3), weight: 2))
        #expect(lines[1].rest == .elastic(minimum: .seconds(10), weight: 3))
        // A line placed by 'at' takes no pause, but a rest after it.
        #expect(lines[2].start == .at(.seconds(60)))
        #expect(lines[2].rest == .elastic(minimum: .seconds(4), weight: 1))
        // No rest: the next line's pause follows the line at once.
        #expect(lines[3].rest == .fixed(.zero))
        #expect(lines[3].start == .after(GuideLine.defaultPause))
    }

    @Test func aGuidedPresetDipsItsCuesUnlessItSaysZero() throws {
        let lines = "  lines:\n    - say: \"Follow the bowl.\"\n"
        #expect(try Self.decode(lines).voice.cueUnderPromptDecibels == VoiceSettings.guidedCueUnderPromptDecibels)
        #expect(try Self.decode(lines, extra: "voice: { cue-under-prompt: 0 }\n").voice.cueUnderPromptDecibels == 0)
    }

    @Test func anUnknownLanguageListsTheOnesThereAre() throws {
        do {
            _ = try PresetDecoder.decode("pattern: 4-0-6-0\nlanguage: nl\n", file: "g.yaml", defaultName: "g")
            Issue.record("decoded")
        } catch {
            #expect(error.description.hasPrefix("g.yaml:2:11: language: unknown language 'nl'"), "\(error.description)")
            #expect(error.description.hasSuffix("medrender has words for de, en, es, fr, it, pt-BR, pt-PT; add a language as Languages/nl.yml in your library"), "\(error.description)")
        }
    }
}
