import Foundation
import MedrenderTestSupport
import Testing

/// A voice memo from a phone (M4A/AAC) plays as any other sound: a voice clip, a bed, a name in a
/// teacher's `Sounds/`; `inspect` reads it; a broken one is the same one-line error as any sound.
@Suite(.enabled(if: which("ffmpeg") != nil, "needs ffmpeg"))
struct VoiceMemoTests {
    /// A memo of `seconds` of a 300 Hz tone at 48 kHz, made by ffmpeg as AAC in M4A.
    static func memo(_ path: String, seconds: Int = 2) throws {
        let result = try runProcess(which("ffmpeg")!, ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                        "sine=frequency=300:sample_rate=48000:duration=\(seconds)",
                                                        "-c:a", "aac", "-b:a", "96k", path])
        try #require(result.status == 0, "ffmpeg: \(result.stderr)")
    }

    @Test func aMemoIsAVoiceClipABedAndANamedSound() throws {
        let dir = TemporaryDirectory("memo")
        try Self.memo(dir.file("memo.m4a"))
        try Self.memo(dir.file("bed.m4a"), seconds: 3)
        try FileManager.default.createDirectory(atPath: dir.file("mine/Sounds"), withIntermediateDirectories: true)
        try Self.memo(dir.file("mine/Sounds/teacher.m4a"))
        dir.write("p.yaml", """
            pattern: 4-0-4-0
            settle: 2
            closing: 2
            voice: { clips: [ { sound: memo.m4a, at: 3 }, { sound: teacher, at: 10 } ] }
            ambience: [bed.m4a]
            """)
        let out = dir.file("out.wav")
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--library", dir.file("mine"), "--cycles", "2", "--rate", "16000",
                                       "--layers", "voice", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let (rate, channels, samples) = try readSound(out)
        #expect(rate == 16000 && samples.count / channels == 20 * 16000)
        // The voice layer holds each memo from its time (1 s windows, the master's fades aside).
        func level(from second: Double) -> Float {
            let start = Int(second * 16000) * channels
            return samples[start..<(start + 16000 * channels)].map(abs).max() ?? 0
        }
        #expect(level(from: 3.2) > 0.05 && level(from: 10.2) > 0.05, "\(level(from: 3.2)) \(level(from: 10.2))")
        #expect(level(from: 6.5) < 0.001, "silence between the clips: \(level(from: 6.5))")
        let ambience = try runMedrender(["--preset", dir.file("p.yaml"), "--library", dir.file("mine"), "--cycles", "2", "--rate", "16000",
                                         "--layers", "ambience", "-o", dir.file("bed.wav")])
        #expect(ambience.status == 0, "\(ambience.stderr)")
        let bed = try readSound(dir.file("bed.wav")).samples
        #expect(bed[(8 * 16000 * channels)..<(9 * 16000 * channels)].map(abs).max() ?? 0 > 0.01, "the bed plays")

        let inspect = try runMedrender(["inspect", "--json", dir.file("memo.m4a")])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
        #expect(report?["format"] as? String == "M4A (AAC)", "\(inspect.stdout)")
        #expect(report?["rate"] as? Int == 48000 && report?["frames"] as? Int == 96000, "\(inspect.stdout)")
        #expect((report?["warnings"] as? [String] ?? []).isEmpty, "\(inspect.stdout)")
    }

    @Test(arguments: [
        ("not audio", Array("this is not a voice memo\n".utf8), "is not a sound file medrender can read"),
        ("empty", [UInt8](), "is not a sound file medrender can read"),
    ] as [(String, [UInt8], String)])
    func aBrokenMemoIsAClearError(what: String, bytes: [UInt8], message: String) throws {
        let dir = TemporaryDirectory("memo-bad")
        FileManager.default.createFile(atPath: dir.file("memo.m4a"), contents: Data(bytes))
        dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [memo.m4a]\n")
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", "8000", "-o", dir.file("out.wav")])
        #expect(result.status == 65, "\(what): \(result.stderr)")
        #expect(result.stderr.contains("memo.m4a: ") && result.stderr.contains(message), "\(what): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }

    @Test func aTruncatedMemoIsBadData() throws {
        let dir = TemporaryDirectory("memo-cut")
        try Self.memo(dir.file("full.m4a"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("full.m4a")))
        FileManager.default.createFile(atPath: dir.file("memo.m4a"), contents: bytes.prefix(bytes.count / 2))
        dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nvoice: { clips: [ { sound: memo.m4a, at: 2 } ] }\n")
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", "8000", "-o", dir.file("out.wav")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("memo.m4a: is not a sound file medrender can read"), "\(result.stderr)")
        let inspect = try runMedrender(["inspect", dir.file("memo.m4a")])
        #expect(inspect.status == 65, "\(inspect.stderr)")
    }
}
