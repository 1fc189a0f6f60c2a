import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// Guided scripts rendered end to end, spoken by a `command` voice that copies a test tone and
/// counts its runs: every line on its cue-sheet frame, synthesis once, nothing cached on failure.
@Suite struct GuidedScriptTests {
    /// A 0.5-s tone at 22050 Hz whose first sample is loud, and a voice program that copies it to
    /// its output path and counts its runs in `runs.txt`.
    static func makeVoice(_ dir: TemporaryDirectory, fail: Bool = false) throws -> String {
        let tone = dir.file("tone.wav")
        let file = try AtomicOutputFile(path: tone)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: 1, rate: 22050)
        var samples = (0..<11025).map { Float(0.5 * cos(2 * Double.pi * 440 * Double($0) / 22050)) }
        try samples.withUnsafeMutableBufferPointer { b throws(IOError) in try writer.write(b.baseAddress!, frameCount: b.count) }
        try writer.finish()
        try file.commit()
        let body = fail ? "echo \"$1\" >> '\(dir.file("runs.txt"))'; echo 'voice model missing' >&2; exit 3"
            : "echo \"$1\" >> '\(dir.file("runs.txt"))'; cp '\(tone)' \"$2\""
        let script = dir.write("voice.sh", "#!/bin/sh\n\(body)\n")
        chmod(script, 0o755)
        return script
    }

    static func runs(_ dir: TemporaryDirectory) -> Int {
        ((try? String(contentsOfFile: dir.file("runs.txt"), encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    static func preset(_ dir: TemporaryDirectory, voice: String, minutes: String = "1") -> String {
        dir.write("guided.yaml", """
            name: guided
            description: test
            minutes: \(minutes)
            pattern: 4-0-6-0
            settle: 10
            closing: 10
            voice:
              prompts: { inhale: voice-breathe-in }
              prompt-cycles: 1
            guide:
              voice: { engine: command, name: "\(voice)" }
              lines:
                - say: "Welcome."
                  pause: 1
                - say: "Breathe with the sound."
                  on: { cycle: 2, phase: exhale }
                - say: "Soften the shoulders."
                  pause: { min: 2, weight: 1 }
                - say: "Rest."
                  pause: { min: 2, weight: 3 }
                - clip: voice-hold
                  text: "Hold."
                  during: closing
                  pause: 0.5
            """)
    }

    static func request(_ dir: TemporaryDirectory, file: String, rate: Int, output: String) throws -> RenderRequest {
        let session = try PresetDecoder.load(path: file)
        var request = RenderRequest(session: session, presetFile: file,
                                    options: RenderOptions(rate: rate, channels: 1, length: session.defaultLength, layers: [.voice]),
                                    format: .wav(.float32), destination: .file(output), library: PresetLibrary(root: PackagePaths.root))
        request.cueSheetPaths = [output + ".json", output + ".vtt"]
        return request
    }

    struct Event: Decodable {
        var type: String
        var frame: Int64
        var endFrame: Int64
        var text: String?
    }
    struct Sheet: Decodable { var events: [Event] }

    @Test(arguments: [16000, 44100, 48000])
    func everyLineSoundsFirstOnItsCueSheetFrame(rate: Int) throws {
        let dir = TemporaryDirectory("guided-frames-\(rate)")
        let voice = try Self.makeVoice(dir)
        let file = Self.preset(dir, voice: voice)
        let out = dir.file("voice.wav")
        let request = try Self.request(dir, file: file, rate: rate, output: out)
        let plan = try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) {
            _ = try Renderer.render(request)
            return try Renderer.check(request)
        }
        let sheet = try JSONDecoder().decode(Sheet.self, from: Data(contentsOf: URL(fileURLWithPath: out + ".json")))
        let spoken = sheet.events.filter { $0.text != nil }
        #expect(spoken.map(\.text!) == ["Welcome.", "Breathe with the sound.", "Soften the shoulders.", "Rest.", "Hold."])
        // The cue sheet's frames are the plan's.
        #expect(spoken.map(\.frame) == plan.guide.lines.map(\.startFrame))
        let (_, channels, samples) = try readSound(out)
        #expect(channels == 1)
        // Every voice sound (prompt or line) is silent before it: the first non-zero sample after
        // the previous one ends is the line's frame.
        let voiced = sheet.events.filter { $0.type == "voice" }.sorted { $0.frame < $1.frame }
        // (The clip line is a recording that may open on silence; the spoken lines are the tone.)
        for (index, event) in voiced.enumerated() where event.text != nil && event.text != "Hold." {
            let from = index == 0 ? 0 : Int(voiced[index - 1].endFrame)
            let first = (from..<samples.count).first { samples[$0] != 0 }
            #expect(first == Int(event.frame), "'\(event.text!)' at \(rate) Hz: cue sheet \(event.frame), first sound \(String(describing: first))")
        }
        // Lines never overlap each other or the prompt.
        for (a, b) in zip(voiced, voiced.dropFirst()) { #expect(a.endFrame <= b.frame) }
        let vtt = try String(contentsOfFile: out + ".vtt", encoding: .utf8)
        #expect(vtt.contains("\nSoften the shoulders.\n"))
        #expect(!vtt.contains("[voice: speech-"))
    }

    @Test func aSecondRenderSynthesizesNothingAndWritesTheSameBytes() throws {
        let dir = TemporaryDirectory("guided-cache")
        let voice = try Self.makeVoice(dir)
        let file = Self.preset(dir, voice: voice)
        let cache = dir.file("cache")
        try SpeechSynthesizer.$cacheDirectoryOverride.withValue(cache) {
            _ = try Renderer.render(try Self.request(dir, file: file, rate: 16000, output: dir.file("a.wav")))
            #expect(Self.runs(dir) == 4)
            _ = try Renderer.render(try Self.request(dir, file: file, rate: 16000, output: dir.file("b.wav")))
            #expect(Self.runs(dir) == 4, "the second render ran the voice again")
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: dir.file("a.wav")))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir.file("b.wav")))
        #expect(a == b)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".wav") }.count == 4)
    }

    @Test func aFailingVoiceSaysWhyAndLeavesNothingInTheCache() throws {
        let dir = TemporaryDirectory("guided-fail")
        let voice = try Self.makeVoice(dir, fail: true)
        let file = Self.preset(dir, voice: voice)
        let cache = dir.file("cache")
        let request = try Self.request(dir, file: file, rate: 16000, output: dir.file("a.wav"))
        do {
            try SpeechSynthesizer.$cacheDirectoryOverride.withValue(cache) { _ = try Renderer.render(request) }
            Issue.record("the render succeeded")
        } catch let error as RenderError {
            #expect(error.description.contains("guided.yaml:13:7:"), "\(error)")
            #expect(error.description.contains("exit code 3: voice model missing"), "\(error)")
            #expect(error.category == .badData)
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("a.wav")))
    }

    @Test func minutesFitSizesTheSessionToItsScript() throws {
        let dir = TemporaryDirectory("guided-fit")
        let voice = try Self.makeVoice(dir)
        let file = Self.preset(dir, voice: voice, minutes: "fit")
        var request = try Self.request(dir, file: file, rate: 16000, output: dir.file("a.wav"))
        request.options.length = .duration(.seconds(600))
        let plan = try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) { try Renderer.check(request) }
        // Whole seconds, no longer than the script at its minimum needs: a second less does not fit.
        #expect(plan.totalFrames % 16000 == 0)
        #expect(plan.total < .seconds(60), "\(plan.total)")
        #expect(plan.guide.lines.count == 5, "a line was left out")
        var shorter = request
        shorter.session.fitsGuide = false
        shorter.session.defaultLength = .duration(plan.total - .seconds(1))
        shorter.options.length = .duration(plan.total - .seconds(1))
        // A second less: the script no longer fits whole (an error, or a line left out).
        let less = try? SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) { try Renderer.check(shorter) }
        #expect(less == nil || less!.guide.lines.count < 5)
    }
}
