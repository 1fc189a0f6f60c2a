import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// A teacher's one-take recording played as a guided script: cut at its phrases, one a line,
/// each placed as a spoken line is and captioned with the line's words; a take that does not
/// match its lines is one error that lists what was found.
@Suite struct TakeRenderTests {
    static let rate = 44100
    /// Three phrases of 3, 1 and 4 syllables.
    static let phrases: [(start: Double, syllables: Int)] = [(0.8, 3), (3.9, 1), (5.6, 4)]

    /// The take written as a WAV in `dir`, and its phrases' frames.
    static func take(_ dir: TemporaryDirectory, phrases: [(start: Double, syllables: Int)] = phrases) throws -> [Range<Int>] {
        let take = syntheticTake(rate: rate, seconds: 9, phrases: phrases)
        let file = try AtomicOutputFile(path: dir.file("take.wav"))
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: 1, rate: rate)
        var samples = take.asset.samples
        try samples.withUnsafeMutableBufferPointer { buffer throws(IOError) in try writer.write(buffer.baseAddress!, frameCount: buffer.count) }
        try writer.finish()
        try file.commit()
        return take.frames
    }

    static func preset(_ dir: TemporaryDirectory, lines: [String], recording: String = "take.wav") -> String {
        dir.write("take.yaml", "name: take\npattern: 4-0-6-0\nminutes: 2\nsettle: 10\nclosing: 10\nguide:\n  recording: \(recording)\n  lines:\n"
            + lines.map { "    - say: \"\($0)\"\n      pause: 2\n" }.joined())
    }

    static let words = ["Welcome, and settle in.", "Breathe.", "Rest here, and let the breath be easy."]

    @Test func eachPhraseIsALinePlacedOnItsFrameAndCaptionedWithItsWords() throws {
        let dir = TemporaryDirectory("take-render")
        let frames = try Self.take(dir)
        let preset = Self.preset(dir, lines: Self.words)
        let result = try runProcess(PackagePaths.executable, ["--preset", preset, "--rate", "\(Self.rate)", "--channels", "1", "--bits", "32f",
                                                              "--stems", dir.file("stems"), "--cues", dir.file("cues.json"), "-o", dir.file("mix.wav")],
                                    environment: ["XDG_CACHE_HOME": dir.file("cache")])
        #expect(result.status == 0, "\(result.stderr)")
        let sheet = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("cues.json")))) as? [String: Any]
        let lines = (sheet?["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "voice" }
        #expect(lines.compactMap { $0["text"] as? String } == Self.words)
        let voice = try readSound(dir.file("stems/mix-voice.wav"))
        for (line, phrase) in zip(lines, frames) {
            let start = try #require(line["frame"] as? Int), end = try #require(line["endFrame"] as? Int)
            // The line's length is its phrase's, with 10 ms before it and at most 60 ms after.
            let length = end - start, sound = phrase.count
            #expect(length >= sound && length <= sound + Self.rate * 9 / 100, "line of \(length) frames for a phrase of \(sound)")
            // Its sound starts 10 ms after the line's frame (the lead kept before it), within 10 ms.
            let part = voice.samples[start..<end]
            let peak = part.map(abs).max() ?? 0
            let onset = try #require(part.firstIndex { abs($0) > peak / 10 }) - start
            #expect(abs(onset - Self.rate / 100) <= Self.rate / 100, "onset \(onset) frames after the line's start")
            // Cut in silence, faded: no click at either end.
            #expect(abs(voice.samples[start]) < peak / 1000 && abs(voice.samples[end - 1]) < peak / 100)
        }
    }

    @Test func aTakeWithMorePhrasesThanLinesListsThemAndSplitCutsItWhereTold() throws {
        let dir = TemporaryDirectory("take-mismatch")
        _ = try Self.take(dir)
        let preset = Self.preset(dir, lines: Array(Self.words.prefix(2)))
        let arguments = ["--preset", preset, "--rate", "8000", "-o", dir.file("out.wav")]
        let environment = ["XDG_CACHE_HOME": dir.file("cache")]
        let result = try runProcess(PackagePaths.executable, arguments, environment: environment)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("\(preset):7:14: the take \(dir.file("take.wav")) has 3 phrases for 2 lines to say (1: 0.80–"),
                "\(result.stderr)")
        #expect(result.stderr.contains("give the cut times between the lines (split:)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
        let listed = try runProcess(PackagePaths.executable, ["takes", dir.file("take.wav")])
        #expect(listed.status == 0 && listed.stdout.contains(": 3 phrases\n") && listed.stdout.contains("   3      5.6"), "\(listed.stdout)")
        // The second line is the last two phrases, cut where the author says.
        let split = Self.preset(dir, lines: Array(Self.words.prefix(2)), recording: "{ sound: take.wav, split: [3.2] }")
        let cut = try runProcess(PackagePaths.executable, ["--preset", split, "--rate", "8000", "-o", dir.file("out.wav")], environment: environment)
        #expect(cut.status == 0, "\(cut.stderr)")
    }

    @Test func aSilentTakeIsOneLineAtItsPlace() throws {
        let dir = TemporaryDirectory("take-silent")
        let file = try AtomicOutputFile(path: dir.file("take.wav"))
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: 1, rate: 8000)
        var silence = [Float](repeating: 0, count: 8000)
        try silence.withUnsafeMutableBufferPointer { buffer throws(IOError) in try writer.write(buffer.baseAddress!, frameCount: buffer.count) }
        try writer.finish()
        try file.commit()
        let preset = Self.preset(dir, lines: ["Welcome."])
        let result = try runProcess(PackagePaths.executable, ["--preset", preset, "-o", dir.file("out.wav")],
                                    environment: ["XDG_CACHE_HOME": dir.file("cache")])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(preset):7:14: the take \(dir.file("take.wav")) is silent"), "\(result.stderr)")
    }
}
