import Foundation
import MedrenderTestSupport
import Testing

/// `--start`/`--end` render a part of a session, as `sox trim` cuts one, at the whole session's
/// loudness: the part is the whole render's frames there.
@Suite struct PartRenderTests {
    static let session = ["--preset", "box-breath", "--minutes", "12", "--rate", "8000", "--channels", "1"]

    @Test func aPartIsTheWholeRendersFramesThere() throws {
        let dir = TemporaryDirectory("part")
        let whole = dir.file("whole.wav"), part = dir.file("part.wav")
        let wholeRun = try runMedrender(Self.session + ["-o", whole])
        try #require(wholeRun.status == 0, "\(wholeRun.stderr)")
        // Minute 10 to 11, the start as M:SS and the end in seconds.
        let partRun = try runMedrender(Self.session + ["--start", "10:00", "--end", "660", "-o", part, "--json"])
        try #require(partRun.status == 0, "\(partRun.stderr)")
        let all = try readSound(whole).samples, piece = try readSound(part).samples
        #expect(piece.count == 60 * 8000)
        let there = all[(600 * 8000)..<(660 * 8000)]
        #expect(there.count == piece.count)
        // Each file is dithered on its own to 16 bits (triangular, ±1 step): two dithers differ by
        // at most 2 steps, and the limiter, started 2 s before the part, is settled by then.
        let step: Float = 1 / 32768
        let largest = zip(there, piece).map { abs($0 - $1) }.max() ?? .infinity
        #expect(largest <= 2 * step + step / 2, "the part differs from the whole by \(largest / step) steps")
        // Not silence: the part holds the session's sound.
        #expect((piece.map(abs).max() ?? 0) > 0.05)
        // The report speaks of the part.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(partRun.stdout.utf8)) as? [String: Any])
        #expect(report["frames"] as? Int == 60 * 8000, "\(report)")
    }

    @Test func aPartOfAnOggStartsWithTheChapterUnderWay() throws {
        let dir = TemporaryDirectory("part-ogg")
        let part = dir.file("part.ogg")
        // The settle ends at 20 s: a part from 10 s starts in it, and the breathing starts 10 s in.
        let run = try runMedrender(Self.session + ["--start", "10", "--end", "70", "-o", part])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(try ffmpegFrames(part) == 60 * 8000)
        let chapters = try ffprobe(part, "chapter=start_time:chapter_tags=title")
        #expect(chapters.contains("start_time=0.000000"), "\(chapters)")
        #expect(chapters.contains("start_time=10.000000"), "\(chapters)")
        #expect(chapters.contains("title=Settle") && chapters.contains("title=Breathing"), "\(chapters)")
    }

    @Test(arguments: [
        (["--end", "9999"], "--end 9999.0 is past the session's end, 720.0 s"),
        (["--start", "30", "--end", "20"], "--end 20.0 is not after --start (30.0 s)"),
        (["--start", "720"], "--start 720.0 is not inside the session, which lasts 720.0 s"),
        (["--start", "-5"], "--start -5.0 is out of range"),
        (["--start", "1:75"], "--start"),
        (["--start", "1:75:00"], "--start"),
        (["--start", "10", "--cues", "part.vtt"], "--cues is of the whole session"),
    ])
    func aPartOutsideTheSessionIsRefused(arguments: [String], message: String) throws {
        let dir = TemporaryDirectory("part-bad")
        let run = try runMedrender(Self.session + arguments + ["-o", dir.file("p.wav")], in: dir.path)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("p.wav")))
    }
}
