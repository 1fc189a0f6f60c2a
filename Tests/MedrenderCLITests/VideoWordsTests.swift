import Foundation
import MedrenderTestSupport
import Testing

/// The words the voice says, in the video: burnt in under the circle while each line sounds (read
/// back from the decoded frames by tesseract, an OCR engine that knows nothing of how they were
/// drawn) and as a subtitle track (`mov_text` in an MP4, WebVTT in a WebM) whose cues ffprobe and
/// ffmpeg read at the cue sheet's times, with the cue sheet's words.
@Suite struct VideoWordsTests {
    static let lines = ["Let your shoulders drop and your jaw soften.", "Notice the weight of your body resting on the floor."]

    /// A short script of two lines, spoken by festival.
    static func preset(_ dir: TemporaryDirectory) -> String {
        dir.write("said.yaml", "name: said\nminutes: fit\npattern: 4-0-6-0\nsettle: 2\nclosing: 2\nguide:\n  voice: festival\n  lines:\n"
            + lines.map { "    - say: \"\($0)\"\n      pause: 1\n" }.joined())
    }

    /// The cue sheet's spoken lines: start and end in seconds, and text.
    static func spoken(_ preset: String, dir: TemporaryDirectory) throws -> [(start: Double, end: Double, text: String)] {
        let sheet = dir.file("cues.json")
        let cues = try runMedrender(["cues", "--preset", preset, "--rate", "16000", "-o", sheet])
        try #require(cues.status == 0, "\(cues.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sheet))) as? [String: Any])
        return (json["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "voice" }.map {
            (($0["seconds"] as? NSNumber)?.doubleValue ?? -1, ($0["endSeconds"] as? NSNumber)?.doubleValue ?? -1, $0["text"] as? String ?? "")
        }
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter }.map(String.init)
    }

    @Test(.enabled(if: which("tesseract") != nil && which("text2wave") != nil, "tesseract or festival is not installed"))
    func eachLineIsReadInTheFrameWhereItIsSpoken() throws {
        let dir = TemporaryDirectory("video-words")
        let preset = Self.preset(dir)
        let video = dir.file("said.mp4")
        let made = try runMedrender(["video", "--preset", preset, "--rate", "16000", "--size", "960x540", "--fps", "2",
                                     "--background", "#101820", "-o", video])
        try #require(made.status == 0, "\(made.stderr)")
        let spoken = try Self.spoken(preset, dir: dir)
        try #require(spoken.map(\.text) == Self.lines, "\(spoken)")
        var read: [Set<String>] = []
        for (index, line) in spoken.enumerated() {
            // The frame in the middle of the line, its lower third (under the circle), as a PNG.
            let picture = dir.file("line-\(index).png")
            let frame = try runProcess(try #require(which("ffmpeg")), ["-v", "error", "-y", "-ss", String((line.start + line.end) / 2), "-i", video,
                                                                        "-frames:v", "1", "-vf", "crop=iw:ih/3:0:2*ih/3", picture])
            try #require(frame.status == 0, "\(frame.stderr)")
            let ocr = try runProcess(try #require(which("tesseract")), [picture, "-"])
            try #require(ocr.status == 0, "\(ocr.stderr)")
            read.append(Set(Self.words(ocr.stdout)))
            let expected = Self.words(line.text)
            let found = expected.filter(read[index].contains)
            #expect(Double(found.count) >= 0.8 * Double(expected.count), "line \(index + 1): tesseract read \(ocr.stdout.debugDescription)")
        }
        // The first line's own words are gone once the second is spoken.
        for word in ["shoulders", "jaw", "soften"] { #expect(!read[1].contains(word), "\(word) still shown: \(read[1])") }
    }

    @Test(arguments: [("mp4", "mov_text"), ("webm", "webvtt")])
    func theSubtitleTrackCarriesEachLineAtItsTimes(container: String, codec: String) throws {
        let dir = TemporaryDirectory("video-subtitles-\(container)")
        let preset = Self.preset(dir)
        let video = dir.file("said.\(container)")
        let made = try runMedrender(["video", "--preset", preset, "--rate", "16000", "--size", "256x144", "--fps", "2", "-o", video])
        try #require(made.status == 0, "\(made.stderr)")
        let spoken = try Self.spoken(preset, dir: dir)
        try #require(spoken.count == Self.lines.count, "\(spoken)")
        let probe = try runProcess(try #require(which("ffprobe")), ["-v", "error", "-select_streams", "s", "-show_entries",
                                                                     "stream=codec_name:packet=pts_time,duration_time,size", "-of", "json", video])
        try #require(probe.status == 0, "\(probe.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
        let streams = json["streams"] as? [[String: Any]] ?? []
        #expect(streams.map { $0["codec_name"] as? String } == [codec], "\(probe.stdout)")
        // An MP4 fills the silences between cues with empty samples (mov_text's 2-byte length 0).
        let packets = (json["packets"] as? [[String: Any]] ?? []).filter { Int($0["size"] as? String ?? "") ?? 0 > 2 }.map {
            (Double($0["pts_time"] as? String ?? "") ?? -1, Double($0["duration_time"] as? String ?? "") ?? -1)
        }
        try #require(packets.count == spoken.count, "\(probe.stdout)")
        for (packet, line) in zip(packets, spoken) {
            #expect(abs(packet.0 - line.start) <= 0.001 && abs(packet.0 + packet.1 - line.end) <= 0.001,
                    "a cue at \(packet.0) s for \(packet.1) s, the line from \(line.start) to \(line.end) s")
        }
        // ffmpeg reads the cues' words back as WebVTT.
        let text = try runProcess(try #require(which("ffmpeg")), ["-v", "error", "-i", video, "-map", "0:s", "-f", "webvtt", "-"])
        try #require(text.status == 0, "\(text.stderr)")
        for line in Self.lines { #expect(text.stdout.contains("\n\(line)\n"), "\(text.stdout)") }
    }
}
