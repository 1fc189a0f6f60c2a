import Foundation
import MedrenderTestSupport
import Testing

/// `cues` says what `render` says and writes where `render` writes; an interrupted render leaves
/// no folder it made.
@Suite struct AuthoringCommandTests {
    /// Wind-down at one minute has no room for its last segment: `cues` warns as a render does.
    @Test func cuesWarnsOfWhatTheFitLeftOut() throws {
        let dir = TemporaryDirectory("cues-warn")
        let result = try runMedrender(["cues", "--preset", "wind-down", "--minutes", "1", "-o", dir.file("s.json")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("medrender: warning: ") && result.stderr.contains("Relax: left out"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("s.json")))
    }

    /// `/dev/null`, a FIFO and `/dev/stdout` (a pipe) are written into, as `render` writes into them.
    @Test func cuesWritesIntoDevicesPipesAndStandardOutput() throws {
        let dir = TemporaryDirectory("cues-streams")
        let null = try runMedrender(["cues", "--preset", "box-breath", "--minutes", "2", "-o", "/dev/null", "--format", "json"])
        #expect(null.status == 0, "\(null.stderr)")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR)

        let fifo = dir.file("sheet.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let exe = PackagePaths.executable
        let piped = try runProcess("/bin/sh", ["-c", """
            cat '\(fifo)' > '\(dir.file("read.vtt"))' & reader=$!
            '\(exe)' cues --preset box-breath --minutes 2 -o '\(fifo)' --format vtt; code=$?
            wait $reader; exit $code
            """], in: PackagePaths.root, killAfter: 120)
        #expect(piped.status == 0, "\(piped.stderr)")
        let vtt = try String(contentsOfFile: dir.file("read.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT"))
        #expect(stat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)

        let out = try runProcess("/bin/sh", ["-c", "'\(exe)' cues --preset box-breath --minutes 2 -o /dev/stdout --format json | cat"],
                                 in: PackagePaths.root, killAfter: 120)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("{\"rate\": "), "\(out.stdout.prefix(80))")
        #expect(!out.stderr.contains("error"), "\(out.stderr)")
    }

    /// SIGINT and SIGTERM in the middle of a render remove the `--stems` folders it made, as an
    /// ordinary failure does.
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedRenderRemovesTheStemsFoldersItMade(signal: Int32) throws {
        let dir = TemporaryDirectory("stems-interrupt")
        let stems = dir.file("made/stems")
        let (sawFile, status) = try runMedrender(
            ["--preset", "box-breath", "--minutes", "180", "--rate", "8000", "-o", dir.file("out.wav"), "--stems", stems],
            signal: signal, whenFileIn: stems, startsWith: ".")
        #expect(sawFile, "no stem was being written")
        #expect(status == 128 + signal)
        #expect(!FileManager.default.fileExists(atPath: dir.file("made")), "\(dir.contents())")
        #expect(dir.contents().isEmpty, "\(dir.contents())")
    }
}
