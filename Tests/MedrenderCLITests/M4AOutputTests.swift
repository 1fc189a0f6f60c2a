import Foundation
import MedrenderTestSupport
import Testing

/// `-o FILE.m4a`: AAC in MP4 with the preset's tags and a chapter a section, read back by ffprobe
/// and ffmpeg (not FFmpeg as medrender-media links it, but the programs): its stream, length,
/// chapters against the cue sheet, and its decoded loudness and peak against a WAV render of the
/// same session.
@Suite struct M4AOutputTests {
    static let session = ["--preset", "box-breath", "--minutes", "1", "--rate", "22050"]

    /// ffmpeg's EBU R128 figures of a file as it decodes: integrated loudness and true peak.
    static func loudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let run = try runProcess(try #require(which("ffmpeg")), ["-hide_banner", "-nostats", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"])
        try #require(run.status == 0, "\(run.stderr)")
        let summary = try #require(run.stderr.range(of: "Summary:").map { String(run.stderr[$0.upperBound...]) }, "\(run.stderr.suffix(500))")
        func figure(_ label: String) -> Double? {
            summary.split(separator: "\n").first { $0.contains(label) }?.split(separator: " ").compactMap { Double($0) }.first
        }
        return (try #require(figure("I:")), try #require(figure("Peak:")))
    }

    @Test func anM4AIsAACWithTagsChaptersAndTheMixOfAWavRender() throws {
        let dir = TemporaryDirectory("m4a-output")
        let m4a = dir.file("session.m4a"), wav = dir.file("session.wav"), sheet = dir.file("cues.json")
        let made = try runMedrender(Self.session + ["--title", "Box test", "--artist", "A teacher", "-o", m4a, "--cues", sheet])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("wrote \(m4a): 00:01:00.000, AAC at 22050 Hz, 2 channels, 3 chapters"), "\(made.stderr)")
        let probe = try runProcess(try #require(which("ffprobe")), ["-v", "error", "-show_chapters", "-show_entries",
                                                                     "format=duration,format_name:format_tags:stream=codec_name,sample_rate,channels",
                                                                     "-of", "json", m4a])
        try #require(probe.status == 0, "\(probe.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
        let streams = json["streams"] as? [[String: Any]] ?? []
        #expect(streams.first?["codec_name"] as? String == "aac" && streams.first?["sample_rate"] as? String == "22050", "\(probe.stdout)")
        let format = try #require(json["format"] as? [String: Any])
        #expect(abs((Double(format["duration"] as? String ?? "") ?? 0) - 60) <= 0.001, "\(format)")
        let tags = format["tags"] as? [String: String] ?? [:]
        #expect(tags["major_brand"]?.hasPrefix("M4A") == true && tags["title"] == "Box test" && tags["artist"] == "A teacher", "\(tags)")
        // A chapter for each section of the cue sheet, from its start to the next one's.
        let cues = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sheet))) as? [String: Any])
        let sections = (cues["sections"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", ($0["seconds"] as? NSNumber)?.doubleValue ?? -1) }
        let chapters = (json["chapters"] as? [[String: Any]] ?? []).map {
            (($0["tags"] as? [String: String])?["title"] ?? "", Double($0["start_time"] as? String ?? "") ?? -1, Double($0["end_time"] as? String ?? "") ?? -1)
        }
        try #require(chapters.count == sections.count && sections.count == 3, "\(chapters) against \(sections)")
        for (index, (chapter, section)) in zip(chapters, sections).enumerated() {
            let end = index + 1 < sections.count ? sections[index + 1].1 : 60
            #expect(chapter.0 == section.0 && abs(chapter.1 - section.1) <= 0.001 && abs(chapter.2 - end) <= 0.001, "\(chapter) for \(section)")
        }
        // As it decodes: the loudness of the same session's WAV, and under the ceiling.
        let reference = try runMedrender(Self.session + ["-o", wav])
        try #require(reference.status == 0, "\(reference.stderr)")
        let (aac, pcm) = (try Self.loudness(m4a), try Self.loudness(wav))
        #expect(abs(aac.integrated - pcm.integrated) <= 0.5, "the M4A at \(aac.integrated) LUFS, the WAV at \(pcm.integrated)")
        #expect(aac.truePeak <= -1.0, "the M4A decodes to a true peak of \(aac.truePeak) dBTP, over the -1 dBTP ceiling")
    }

    /// A cue sheet or a video that cannot be written fails the render before the M4A is put in
    /// place (a sheet before it is even made): the M4A already there keeps its bytes, and nothing
    /// is left beside it.
    @Test(arguments: [("--cues", "cues.json"), ("--video", "session.mp4")])
    func whatGoesWithTheM4AFailingLeavesTheM4AAsItWas(option: String, file: String) throws {
        let dir = TemporaryDirectory("m4a-beside")
        let m4a = dir.file("session.m4a")
        let good = Data("a session rendered before".utf8)
        try good.write(to: URL(fileURLWithPath: m4a))
        let made = try runMedrender(Self.session + ["-o", m4a, option, dir.file("no-such-folder/\(file)")])
        #expect(made.status != 0, "\(option): \(made.stderr)")
        #expect(made.stderr.contains("no-such-folder"), "\(option): \(made.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: m4a)) == good, "\(option): the M4A was replaced")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["session.m4a"], "\(option): a file was left behind")
    }

    /// Refused before anything is prepared: a guided script is not spoken (its speech cache stays
    /// empty), and no file is written.
    @Test(arguments: [(["--stems", "stems"], "--stems does not go with an .m4a output"),
                      (["--start", "10"], "--start does not go with an .m4a output"),
                      (["--rate", "12345"], "--rate 12345 cannot be carried by AAC in an M4A")])
    func whatAnM4ACannotCarryIsRefusedAndNothingIsWritten(options: [String], message: String) throws {
        let dir = TemporaryDirectory("m4a-refused")
        let m4a = dir.file("out/session.m4a"), cache = dir.file("cache")
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let made = try runProcess(PackagePaths.executable, ["--preset", "guided-sleep-478", "--minutes", "1"] + options + ["-o", m4a],
                                  in: dir.file("out"), environment: ["XDG_CACHE_HOME": cache])
        #expect(made.status == 64 || made.status == 65, "\(made.status): \(made.stderr)")
        #expect(made.stderr.contains(message), "\(made.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).filter { $0 != "stems" }.isEmpty, "a file was left behind")
        #expect(FileManager.default.enumerator(atPath: cache)?.allObjects.isEmpty ?? true, "something was spoken or cached")
    }
}
