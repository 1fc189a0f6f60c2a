import Foundation
import MedrenderTestSupport
import Testing

/// `--speech-timeout` bounds each line a speech engine speaks, and a signal that ends medrender ends
/// the engine it is waiting on, with everything the engine started.
@Suite struct SpeechBoundsCommandTests {
    /// A preset whose script speaks one line with `program`.
    static func preset(_ dir: TemporaryDirectory, program: String) -> String {
        dir.write("hang.yaml", """
            name: hang
            pattern: 4-0-6-0
            settle: 10
            closing: 10
            guide:
              voice: { engine: command, name: "\(program)" }
              lines:
                - say: "Welcome."

            """)
    }

    /// The files in the speech cache of `XDG_CACHE_HOME=cacheHome`.
    static func speechCache(_ cacheHome: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: cacheHome + "/medrender/speech")) ?? []
    }

    @Test func aLineThatRunsPastTheTimeLimitFailsAndItsEngineIsEnded() throws {
        let dir = TemporaryDirectory("speech-timeout-cli")
        let program = writeHangingProgram("hang.sh", in: dir, pidsFile: dir.file("pids"))
        let file = Self.preset(dir, program: program)
        let result = try runProcess(PackagePaths.executable, ["--preset", file, "--speech-timeout", "2", "-o", dir.file("out.wav")],
                                    in: PackagePaths.root, environment: ["XDG_CACHE_HOME": dir.file("cache")], killAfter: 300)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("\(file):8:7: command ('\(program)') ran past the time limit of 2 s for one line and was stopped"),
                "\(result.stderr)")
        let pids = readProcessIDs(dir.file("pids"))
        #expect(pids.count == 2, "the program wrote its id and its child's")
        for pid in pids { #expect(waitUntilEnded(pid), "process \(pid) still runs") }
        #expect(Self.speechCache(dir.file("cache")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsTheEngineMedrenderWaitsOn(signal: Int32) throws {
        let dir = TemporaryDirectory("speech-signal-cli")
        try FileManager.default.createDirectory(atPath: dir.file("run"), withIntermediateDirectories: true)
        let program = writeHangingProgram("hang.sh", in: dir, pidsFile: dir.file("run/pids"))
        let file = Self.preset(dir, program: program)
        // Signalled once the engine runs, as its ids say.
        let (sawFile, status) = try runMedrender(["--preset", file, "-o", dir.file("out.wav")], signal: signal,
                                                 whenFileIn: dir.file("run"), startsWith: "pids",
                                                 environment: ["XDG_CACHE_HOME": dir.file("cache")])
        #expect(sawFile, "the engine started")
        #expect(status == 128 + signal)
        let pids = readProcessIDs(dir.file("run/pids"))
        #expect(pids.count == 2, "the program wrote its id and its child's")
        for pid in pids { #expect(waitUntilEnded(pid), "process \(pid) still runs") }
        #expect(Self.speechCache(dir.file("cache")).isEmpty, "the line's text file was removed")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }

    @Test(arguments: ["0", "-1", "86401", "nan"])
    func aTimeLimitOutOfRangeIsAUsageError(seconds: String) throws {
        let result = try runMedrender(["--preset", "box-breath", "--speech-timeout", seconds, "-o", "/dev/null"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--speech-timeout"), "\(result.stderr)")
    }
}
