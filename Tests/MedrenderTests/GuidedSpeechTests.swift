import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The voice checked before anything is spoken, bad input said in one line at its place, spoken
/// prompts in the session's language, and `--minutes fit` for a voice track.
@Suite struct GuidedSpeechTests {
    /// A preset whose `voice:` is on line 6, column 10.
    static func preset(_ dir: TemporaryDirectory, voice: String, extra: String = "", lines: String = "    - say: \"Welcome.\"\n") -> String {
        dir.write("g.yaml", """
            name: g
            pattern: 4-0-6-0
            settle: 10
            closing: 10
            guide:
              voice: \(voice)
              lines:
            \(lines)\(extra)
            """)
    }

    static func request(_ file: String, dir: TemporaryDirectory, rate: Int = 16000) throws -> RenderRequest {
        let session = try PresetDecoder.load(path: file)
        return RenderRequest(session: session, presetFile: file,
                             options: RenderOptions(rate: rate, channels: 1, length: session.defaultLength),
                             format: .wav(.float32), destination: .file(dir.file("out.wav")), library: PresetLibrary(root: PackagePaths.root))
    }

    /// Runs `body` with the test's own speech cache; returns the error it threw.
    static func failure(_ dir: TemporaryDirectory, path: String? = nil, _ body: () throws -> Void) -> (any Error)? {
        do {
            try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) {
                try SpeechSynthesizer.$searchPathOverride.withValue(path) { try body() }
            }
            return nil
        } catch {
            return error
        }
    }

    static func cacheIsEmpty(_ dir: TemporaryDirectory) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.file("cache"))) ?? []).isEmpty
    }

    @Test(arguments: [
        ("{ engine: espeak-ng, name: xx-nowhere }", "espeak-ng has no voice 'xx-nowhere'", ["de", "en", "fr"]),
        ("{ engine: flite, name: nobody }", "flite has no voice 'nobody'", ["slt", "kal", "awb"]),
        ("{ engine: festival, name: voice_nobody }", "festival has no voice 'voice_nobody'", ["cmu_us_slt_arctic_hts"]),
    ])
    func anUnknownVoiceIsCaughtBeforeSynthesisListingTheInstalledOnes(voice: String, message: String, listed: [String]) throws {
        let dir = TemporaryDirectory("speech-unknown-voice")
        let file = Self.preset(dir, voice: voice)
        let error = Self.failure(dir) { _ = try Renderer.check(try Self.request(file, dir: dir)) }
        let text = (error as? any DiagnosedError)?.description ?? "\(String(describing: error))"
        #expect(text.hasPrefix("\(file):6:10: \(message); installed: "), "\(text)")
        for name in listed { #expect(text.contains(name), "\(text)") }
        #expect(!text.contains("\n"))
        #expect((error as? any DiagnosedError)?.category == .badData)
        #expect(Self.cacheIsEmpty(dir), "something was synthesized")
    }

    @Test(arguments: [
        ("espeak-ng", "apt-get install espeak-ng"),
        ("festival", "apt-get install festival festvox-us-slt-hts"),
        ("flite", "apt-get install flite"),
    ])
    func anEngineThatIsNotInstalledNamesItsPackage(engine: String, package: String) throws {
        let dir = TemporaryDirectory("speech-missing-engine")
        let file = Self.preset(dir, voice: "{ engine: \(engine) }")
        let empty = dir.file("bin")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let error = Self.failure(dir, path: empty) { _ = try Renderer.check(try Self.request(file, dir: dir)) }
        let text = (error as? any DiagnosedError)?.description ?? "\(String(describing: error))"
        #expect(text.hasPrefix("\(file):6:10: the speech engine \(engine)"), "\(text)")
        #expect(text.contains("is not installed; install it: \(package)"), "\(text)")
        #expect((error as? any DiagnosedError)?.category == .missingInput)
        #expect(Self.cacheIsEmpty(dir))
    }

    @Test func aCommandThatWritesNoAudioSaysSoAtItsLine() throws {
        let dir = TemporaryDirectory("speech-no-audio")
        let program = dir.write("quiet.sh", "#!/bin/sh\necho 'no model loaded' >&2\nexit 0\n")
        chmod(program, 0o755)
        let file = Self.preset(dir, voice: "{ engine: command, name: \"\(program)\" }")
        let error = Self.failure(dir) { _ = try Renderer.render(try Self.request(file, dir: dir)) }
        let text = (error as? any DiagnosedError)?.description ?? "\(String(describing: error))"
        #expect(text.hasPrefix("\(file):8:7: command"), "\(text)")
        #expect(text.contains("wrote no audio: no model loaded"), "\(text)")
        #expect((error as? any DiagnosedError)?.category == .badData)
        #expect(Self.cacheIsEmpty(dir))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }

    @Test func aClipThatIsNotASoundNamesItsLine() throws {
        let dir = TemporaryDirectory("speech-bad-clip")
        _ = dir.write("words.wav", "these are words, not a sound\n")
        let file = Self.preset(dir, voice: "espeak-ng", lines: "    - clip: words.wav\n      text: \"Hello.\"\n")
        let error = Self.failure(dir) { _ = try Renderer.render(try Self.request(file, dir: dir)) }
        let text = (error as? any DiagnosedError)?.description ?? "\(String(describing: error))"
        #expect(text.hasPrefix("\(file):8:7: the clip 'words.wav' is not a sound"), "\(text)")
        #expect(!text.contains("\n"))
        #expect((error as? any DiagnosedError)?.category == .badData)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }

    /// A voice program that writes its text's tone and logs each text it is given.
    static func loggingVoice(_ dir: TemporaryDirectory) throws -> String {
        let tone = dir.file("tone.wav")
        let file = try AtomicOutputFile(path: tone)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: 1, rate: 16000)
        var samples = (0..<4000).map { Float(0.4 * sin(2 * Double.pi * 330 * Double($0) / 16000)) + 0.1 }
        try samples.withUnsafeMutableBufferPointer { b throws(IOError) in try writer.write(b.baseAddress!, frameCount: b.count) }
        try writer.finish()
        try file.commit()
        let script = dir.write("voice.sh", "#!/bin/sh\necho \"$1\" >> '\(dir.file("texts.txt"))'\ncp '\(tone)' \"$2\"\n")
        chmod(script, 0o755)
        return script
    }

    @Test func spokenPromptsAndLeadInAreTheLanguagesWords() throws {
        let dir = TemporaryDirectory("speech-prompts-de")
        let voice = try Self.loggingVoice(dir)
        let file = dir.write("de.yaml", """
            name: de
            minutes: 1
            language: de
            pattern: 4-4-4-2
            settle: 10
            closing: 10
            voice: { prompts: spoken, prompt-cycles: 2, lead-in: spoken }
            guide:
              voice: { engine: command, name: "\(voice)" }
              lines:
                - say: "Willkommen."
                  at: 1
            """)
        let request = try Self.request(file, dir: dir)
        let plan = try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) { try Renderer.check(request) }
        let texts = try String(contentsOfFile: dir.file("texts.txt"), encoding: .utf8).split(separator: "\n").map(String.init)
        // Every text spoken once (the two holds share one): the line, the prompts, three, two, one.
        #expect(Set(texts) == ["Willkommen.", "Einatmen", "Halten", "Ausatmen", "Drei", "Zwei", "Eins"], "\(texts)")
        #expect(texts.count == 7, "\(texts)")
        // The prompts play on the first two cycles' phases, the count on the three seconds before the first breath.
        let voiceStarts = plan.clips.filter { $0.layer == .voice }.map(\.startFrame)
        let first = plan.schedule.start.frame(atRate: 16000)
        for second in 1...3 { #expect(voiceStarts.contains(first - Int64(second) * 16000), "lead-in \(second) s before") }
        let phases = Array(plan.schedule).filter { $0.cycle <= 2 }
        for phase in phases { #expect(voiceStarts.contains(phase.start.frame(atRate: 16000)), "\(phase.kind) of cycle \(phase.cycle)") }
        // The engine's requests carry the language, so German words are spoken as German.
        let requests = try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) {
            try GuideSpeech.requests(for: request.session, origin: file)
        }
        #expect(requests.allSatisfy { $0.language.tag == "de" })
    }

    /// Every stock language has an espeak-ng voice: Brazil's Portuguese is its `pt-br`, Portugal's
    /// its `pt`, and a bare `pt` is Brazil's.
    @Test(arguments: [("pt", "pt-br", "Segure"), ("pt-BR", "pt-br", "Segure"), ("pt-pt", "pt", "Sustenha"),
                      ("fr", "fr", "Retenez"), ("es", "es", "Mantén"), ("it", "it", "Trattieni")])
    func everyLanguageHasAnEspeakVoice(tag: String, voice: String, hold: String) throws {
        let dir = TemporaryDirectory("speech-espeak-tag")
        let file = dir.write("p.yaml", """
            name: p
            minutes: 1
            language: \(tag)
            pattern: 4-4-4-4
            voice: { prompts: spoken, prompt-cycles: 1 }
            """)
        let request = try Self.request(file, dir: dir)
        let requests = try GuideSpeech.requests(for: request.session, origin: file)
        #expect(requests.allSatisfy { $0.engine == .espeakNG && $0.voice == voice }, "\(requests.map(\.voice))")
        #expect(requests.map(\.text).contains(hold))
    }

    @Test func germanPromptsAreSpokenByEspeakInGerman() throws {
        let dir = TemporaryDirectory("speech-espeak-de")
        let file = dir.write("de.yaml", """
            name: de
            minutes: 1
            language: de
            pattern: 4-4-4-4
            settle: 10
            closing: 10
            voice: { prompts: spoken, prompt-cycles: 1 }
            """)
        let request = try Self.request(file, dir: dir)
        let requests = try GuideSpeech.requests(for: request.session, origin: file)
        #expect(requests.map(\.text) == ["Einatmen", "Halten", "Ausatmen", "Halten"])
        #expect(requests.allSatisfy { $0.engine == .espeakNG && $0.voice == "de" && $0.language.tag == "de" })
        #expect(requests.allSatisfy { $0.engineVersion.contains("eSpeak NG") }, "\(requests.map(\.engineVersion))")
        // The render speaks them: each prompt's audio in the cache is espeak-ng's German.
        _ = try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) { try Renderer.render(request) }
        let cached = try FileManager.default.contentsOfDirectory(atPath: dir.file("cache")).filter { $0.hasSuffix(".wav") }
        #expect(Set(cached) == Set(requests.map { "\($0.key).wav" }))
        // German "Einatmen" as espeak-ng says it, not the English reading of the letters: the same
        // text in the English voice sounds different.
        let german = try readSound(dir.file("cache/\(requests[0].key).wav")).samples
        var english = requests[0]
        english.voice = "en"
        english.language = .english
        let path = try SpeechSynthesizer(cacheDirectory: dir.file("cache")).audio(for: english, place: "test")
        #expect(try readSound(path).samples != german)
    }

    /// A voice track of `seconds` at 16 kHz, quiet but not silent.
    static func track(_ dir: TemporaryDirectory, seconds: Int) throws -> String {
        let path = dir.file("track.wav")
        let file = try AtomicOutputFile(path: path)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: 1, rate: 16000)
        var samples = (0..<(seconds * 16000)).map { Float(0.2 * sin(2 * Double.pi * 220 * Double($0) / 16000)) }
        try samples.withUnsafeMutableBufferPointer { b throws(IOError) in try writer.write(b.baseAddress!, frameCount: b.count) }
        try writer.finish()
        try file.commit()
        return path
    }

    @Test(arguments: [(37, 5), (95, 0)])
    func minutesFitSizesASessionToItsVoiceTrack(seconds: Int, at: Int) throws {
        let dir = TemporaryDirectory("speech-track-fit")
        _ = try Self.track(dir, seconds: seconds)
        let file = dir.write("t.yaml", """
            name: t
            minutes: 10
            pattern: 4-0-6-0
            settle: 10
            closing: 12
            voice: { track: track.wav, track-at: \(at) }
            """)
        var request = try Self.request(file, dir: dir)
        var parameters = SessionRequest(preset: file)
        parameters.length = .fitToGuide
        try parameters.applyGuide(to: &request.session)
        let plan = try Renderer.check(request)
        // The track's end plus the closing, in whole seconds.
        #expect(plan.total == .seconds(Int64(at + seconds + 12)), "\(plan.total)")
        let track = try #require(plan.clips.first { $0.layer == .voice })
        #expect(track.startFrame == Int64(at) * 16000)
        #expect(track.maximumFrames >= Int64(seconds) * 16000)
        // Rendered, the file is that long.
        _ = try Renderer.render(request)
        #expect(try readSound(dir.file("out.wav")).samples.count == (at + seconds + 12) * 16000)
    }
}
