import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// The speech engines are bounded: one that hangs is ended with everything it started once its
/// line's time limit passes (or its task is cancelled), one that writes without end to its
/// standard error costs 64 KiB of it, and neither leaves anything in the cache.
@Suite struct SpeechBoundsTests {
    static func request(_ program: String) -> SpeechRequest {
        SpeechRequest(engine: .command, voice: program, language: .english, text: "Welcome.", engineVersion: "test")
    }

    static func cacheIsEmpty(_ dir: TemporaryDirectory) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.file("cache"))) ?? []).isEmpty
    }

    /// A program that writes 8 MiB to its standard error without a line break, then the line
    /// "boom", and exits 3.
    static func noisyProgram(_ dir: TemporaryDirectory) -> String {
        let program = dir.write("noisy.sh", """
            #!/bin/sh
            head -c 8388608 /dev/zero | tr '\\0' x >&2
            printf '\\nboom\\n' >&2
            exit 3

            """)
        chmod(program, 0o755)
        return program
    }

    @Test func anEngineThatHangsIsEndedWithWhatItStartedAtTheTimeLimit() throws {
        let dir = TemporaryDirectory("speech-bounds-hang")
        let program = writeHangingProgram("hang.sh", in: dir, pidsFile: dir.file("pids"))
        let synthesizer = SpeechSynthesizer(cacheDirectory: dir.file("cache"), timeLimitSeconds: 2)
        let error = #expect(throws: RenderError.self) { try synthesizer.audio(for: Self.request(program), place: "g.yaml:8:7") }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("g.yaml:8:7: command ('\(program)') ran past the time limit of 2 s for one line and was stopped; "),
                "\(text)")
        #expect(text.hasSuffix("raise the limit (--speech-timeout) or check that the program ends"), "\(text)")
        #expect(error?.category == .io)
        // The program and its child, both.
        let pids = readProcessIDs(dir.file("pids"))
        #expect(pids.count == 2, "the program wrote its id and its child's")
        for pid in pids { #expect(waitUntilEnded(pid), "process \(pid) still runs") }
        #expect(!ProcessGroups.running.contains(pids.first ?? 0))
        #expect(Self.cacheIsEmpty(dir))
    }

    @Test func aCancelledTaskEndsItsEngineAndWhatItStarted() async throws {
        let dir = TemporaryDirectory("speech-bounds-cancel")
        let program = writeHangingProgram("hang.sh", in: dir, pidsFile: dir.file("pids"))
        let synthesizer = SpeechSynthesizer(cacheDirectory: dir.file("cache"), timeLimitSeconds: 600)
        // The task runs on a thread of its own: the shared pool's threads may all be held by other
        // tests' renders for minutes on a busy machine, and the engine must start regardless.
        let task = Task(executorPreference: OwnThreadExecutor()) { try synthesizer.audio(for: Self.request(program), place: "g.yaml:8:7") }
        // Cancelled once the program runs: waited for here without giving up this thread (the
        // bound only keeps a broken build from hanging the suite).
        let bound = Date().addingTimeInterval(600)
        while readProcessIDs(dir.file("pids")).count < 2, Date() < bound { usleep(10_000) }
        let pids = readProcessIDs(dir.file("pids"))
        try #require(pids.count == 2, "the program wrote its id and its child's")
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        for pid in pids { #expect(waitUntilEnded(pid), "process \(pid) still runs") }
        #expect(Self.cacheIsEmpty(dir))
    }

    @Test func anEngineThatWritesWithoutEndIsKeptToItsLastLineAndExitCode() throws {
        let dir = TemporaryDirectory("speech-bounds-noisy")
        let program = Self.noisyProgram(dir)
        let synthesizer = SpeechSynthesizer(cacheDirectory: dir.file("cache"))
        let error = #expect(throws: RenderError.self) { try synthesizer.audio(for: Self.request(program), place: "g.yaml:8:7") }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("g.yaml:8:7: command ('\(program)') failed with exit code 3: boom; "), "\(text.prefix(400))")
        #expect(text.count < 1000, "one line, not the 8 MiB")
        #expect(error?.category == .badData)
        #expect(Self.cacheIsEmpty(dir))
    }

    @Test func aProgramsStandardErrorIsKeptToItsLast64KiB() throws {
        let dir = TemporaryDirectory("speech-bounds-tail")
        let group = try ProcessGroup(executable: Self.noisyProgram(dir), arguments: [])
        #expect(group.wait(limitSeconds: 600) { false } == .exited(3))
        #expect(group.errorTail.totalBytes == (8 << 20) + 6)
        let kept = group.errorTail.bytes
        #expect(kept.count == 64 << 10)
        #expect(kept.suffix(6) == Array("\nboom\n".utf8))
        #expect(kept.dropLast(6).allSatisfy { $0 == UInt8(ascii: "x") })
        #expect(group.errorTail.lastLine == "boom")
    }

    @Test func aProgramHoldsNoneOfTheCallersFiles() throws {
        let dir = TemporaryDirectory("speech-bounds-descriptors")
        let held = dir.write("held.txt", "held open by the test\n")
        let descriptor = open(held, O_RDONLY)  // not closed on exec
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let program = dir.write("look.sh", "#!/bin/sh\nreadlink /proc/$$/fd/\(descriptor) >&2\necho looked >&2\n")
        chmod(program, 0o755)
        let group = try ProcessGroup(executable: program, arguments: [])
        #expect(group.wait(limitSeconds: 600) { false } == .exited(0))
        let said = String(decoding: group.errorTail.bytes, as: UTF8.self)
        #expect(said == "looked\n", "the program had descriptor \(descriptor): \(said)")
    }

    /// Nothing, one byte, one byte short of the capacity, the capacity, one over, and much more,
    /// appended in pieces of several sizes (one byte, a prime, the capacity and over it).
    @Test(arguments: [0, 1, 999, 1000, 1001, 5000], [1, 7, 1000, 1001])
    func aTailKeepsTheLastBytesInOrder(total: Int, piece: Int) {
        var tail = OutputTail(capacity: 1000)
        let bytes = (0..<total).map { UInt8($0 % 251) }
        bytes.withUnsafeBytes { all in
            for start in stride(from: 0, to: total, by: piece) {
                tail.append(UnsafeRawBufferPointer(rebasing: all[start..<min(start + piece, total)]))
            }
        }
        #expect(tail.bytes == Array(bytes.suffix(1000)))
        #expect(tail.totalBytes == Int64(total))
    }

    @Test(arguments: [
        ("", ""),
        ("one line", "one line"),
        ("first\n  last one  \n\n \t\n", "last one"),
        ("a\r\nb\r\n", "b"),
        (String(repeating: "y", count: 400) + "z\n", "…" + String(repeating: "y", count: 299) + "z"),
    ])
    func aTailsLastLineIsItsLastLineWithWords(written: String, line: String) {
        var tail = OutputTail(capacity: 1000)
        Array(written.utf8).withUnsafeBytes { tail.append($0) }
        #expect(tail.lastLine == line)
    }
}

/// Runs the jobs of the tasks that prefer it on one serial queue of its own, outside the shared pool.
final class OwnThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "medrender.test.own-thread")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
