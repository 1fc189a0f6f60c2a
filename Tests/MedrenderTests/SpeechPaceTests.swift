import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// A script spoken at its pace, by every engine: each line's words over its spoken length (edge
/// silence trimmed, as the cache keeps it) within 10 % of the pace asked; a `[pause N]` is exact
/// silence between phrases.
@Suite struct SpeechPaceTests {
    /// Meditation lines of unlike shapes: short words, long words, a comma.
    static let lines = [
        "Let your shoulders drop and your jaw soften.",
        "Breathe in slowly through your nose, and feel your chest rise.",
        "There is nothing you need to do right now.",
        "Notice the weight of your body resting on the floor.",
    ]

    /// The engines installed here, with the voice each speaks English with.
    static let engines: [(GuideVoice.Engine, String)] = {
        var found: [(GuideVoice.Engine, String)] = []
        if which("text2wave") != nil { found.append((.festival, "cmu_us_slt_arctic_hts")) }
        if which("espeak-ng") != nil { found.append((.espeakNG, "en")) }
        if which("flite") != nil { found.append((.flite, "slt")) }
        if piperProgram != nil, PiperVoices.find("en_US-joe-medium") != nil { found.append((.piper, "en_US-joe-medium")) }
        return found
    }()

    static func request(_ engine: GuideVoice.Engine, _ voice: String, _ text: String, pace: Int?) -> SpeechRequest {
        SpeechRequest(engine: engine, voice: voice, language: .english, text: text, engineVersion: "test", pace: pace)
    }

    /// The cached audio of `request`: its samples, channels and rate.
    static func cached(_ synthesizer: SpeechSynthesizer, _ request: SpeechRequest) throws -> (samples: [Float], channels: Int, rate: Int) {
        let reader = try SoundFileReader(path: synthesizer.cachedPath(request))
        let asset = try reader.readAll()
        return (asset.samples, asset.channels, reader.rate)
    }

    @Test(arguments: [90, 120, 160])
    func everyEngineSpeaksEachLineWithinATenthOfThePace(pace: Int) throws {
        #expect(Self.engines.count >= 3, "festival, espeak-ng and flite are installed by make test-deps")
        let dir = TemporaryDirectory("speech-pace")
        let synthesizer = SpeechSynthesizer(cacheDirectory: dir.file("cache"))
        for (engine, voice) in Self.engines {
            let requests = Self.lines.map { Self.request(engine, voice, $0, pace: pace) }
            try synthesizer.speakAhead(requests, place: "pace test")
            for request in requests {
                _ = try synthesizer.audio(for: request, place: "pace test")
                let audio = try Self.cached(synthesizer, request)
                let seconds = Double(audio.samples.count / audio.channels) / Double(audio.rate)
                let measured = Double(SpokenPhrases.wordCount(request.text)) * 60 / seconds
                #expect(abs(measured / Double(pace) - 1) <= 0.10,
                        "\(engine.rawValue) at \(pace) wpm spoke '\(request.text)' at \(String(format: "%.1f", measured)) wpm")
            }
        }
    }

    @Test func aPauseInALineIsExactSilenceBetweenItsPhrasesAndTheCaptionKeepsTheWords() throws {
        let dir = TemporaryDirectory("speech-pause")
        let synthesizer = SpeechSynthesizer(cacheDirectory: dir.file("cache"))
        let line = Self.request(.espeakNG, "en", "Breathe in slowly. [pause 2] And let it go.", pace: 120)
        _ = try synthesizer.audio(for: line, place: "pause test")
        let whole = try Self.cached(synthesizer, line)
        let first = try Self.cached(synthesizer, Self.request(.espeakNG, "en", "Breathe in slowly.", pace: 120))
        let second = try Self.cached(synthesizer, Self.request(.espeakNG, "en", "And let it go.", pace: 120))
        let silence = [Float](repeating: 0, count: 2 * whole.rate * whole.channels)
        #expect(whole.samples.count == first.samples.count + silence.count + second.samples.count)
        #expect(whole.samples == first.samples + silence + second.samples, "the line is its phrases with exactly 2 s between them")
        #expect(GuideLine(content: .say("Breathe in slowly. [pause 2] And let it go.")).text == "Breathe in slowly. And let it go.")
    }

    @Test(arguments: [
        ("Breathe. [pause two] Rest.", "'[pause two]', which is not a pause; write [pause N]"),
        ("Breathe. [pause 2 Rest.", "a '[' with no ']'"),
        ("[pause 2] Breathe.", "a pause with no words before it"),
        ("Breathe. [pause 2]", "ends with a pause"),
        ("Breathe. [pause 90] Rest.", "not a pause; write [pause N] with N from 0.001 to 60 seconds"),
    ])
    func aPauseThatDoesNotParseIsOneLineAtItsPlace(text: String, message: String) throws {
        let dir = TemporaryDirectory("speech-pause-bad")
        let file = dir.write("g.yaml", "name: g\npattern: 4-0-6-0\nguide:\n  lines:\n    - say: \"\(text)\"\n")
        do {
            _ = try PresetDecoder.load(path: file)
            Issue.record("'\(text)' was taken")
        } catch {
            #expect(error.description.hasPrefix("\(file):5:12:"), "\(error.description)")
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.category == .badData)
        }
    }

    @Test(arguments: [("guide:\n  pace: 300\n  lines:\n    - say: \"Hi.\"\n", "5:9", "300 words a minute is out of range; use 50 to 250"),
                      ("guide:\n  lines:\n    - say: \"Hi.\"\n      pace: 40\n", "7:13", "40 words a minute is out of range; use 50 to 250"),
                      ("guide:\n  lines:\n    - clip: bell\n      pace: 100\n", "7:13", "a clip is played as recorded")])
    func aPaceOutOfRangeIsOneLineAtItsPlace(script: String, at: String, message: String) throws {
        let dir = TemporaryDirectory("speech-pace-bad")
        let file = dir.write("g.yaml", "name: g\npattern: 4-0-6-0\nsettle: 10\n" + script)
        do {
            _ = try PresetDecoder.load(path: file)
            Issue.record("the pace was taken")
        } catch {
            #expect(error.description.hasPrefix("\(file):\(at):"), "\(error.description)")
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func theRequestsPaceReplacesTheScriptsAndKeepsALinesOwn() throws {
        let dir = TemporaryDirectory("speech-pace-request")
        let file = dir.write("g.yaml", "name: g\npattern: 4-0-6-0\nsettle: 10\nguide:\n  voice: espeak-ng\n  pace: 100\n  lines:\n"
            + "    - say: \"One line.\"\n    - say: \"Its own.\"\n      pace: 150\n")
        var session = try PresetDecoder.load(path: file)
        var asked = SessionRequest(preset: file)
        asked.pace = 90
        try asked.applyGuide(to: &session)
        let requests = try GuideSpeech.requests(for: session, origin: file)
        #expect(requests.map(\.pace) == [90, 150])
        asked.pace = 251
        #expect(throws: ParameterError.self) { try asked.renderRequest(library: PresetLibrary(root: PackagePaths.root), destination: .file(dir.file("o.wav"))) }
    }
}
