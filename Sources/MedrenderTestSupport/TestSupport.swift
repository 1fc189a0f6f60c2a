import Foundation
import MedrenderCore
import MedrenderIO

/// A temporary directory of a test's own, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "test") {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/medrender-\(label)-\(UUID().uuidString.prefix(8))"
        // Not `try!`: a failure here (a full disk, no descriptors left) fails the tests that use
        // the folder, each with its own message, instead of ending every test in the process.
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("TemporaryDirectory: cannot create \(path): \(error)\n".utf8))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        do {
            try text.write(toFile: p, atomically: false, encoding: .utf8)
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("TemporaryDirectory: cannot write \(p): \(error)\n".utf8))
        }
        return p
    }

    /// The names of the files inside, sorted.
    public func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// Where the package lives, and what it builds.
public enum PackagePaths {
    /// The package's root folder (the one holding Package.swift).
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The built `medrender` executable, beside the test bundle.
    public static let executable: String = {
        var candidates: [String] = []
        if let exe = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(exe.appendingPathComponent("medrender").path)
            candidates.append(exe.deletingLastPathComponent().appendingPathComponent("medrender").path)
        }
        candidates += ["\(root)/.build/debug/medrender", "\(root)/.build/release/medrender"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()
}

/// A speech cache (an `XDG_CACHE_HOME`) shared by the tests of one run that do not test the cache
/// itself: each line is synthesized once for all of them, as a user's renders share theirs (Piper
/// takes seconds a line, and every guided stock preset was spoken again by each suite that renders
/// it). Made fresh for the run, so no test finds what another run left; removed when it ends.
public let sharedSpeechCacheHome: String = {
    let path = "\(FileManager.default.temporaryDirectory.path)/medrender-speech-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: sharedSpeechCacheHome) }
    return path
}()

/// Reads a whole sound file as interleaved Float32.
public func readSound(_ path: String) throws -> (rate: Int, channels: Int, samples: [Float]) {
    let reader = try SoundFileReader(path: path)
    var samples = [Float](repeating: 0, count: 4096 * reader.channels)
    var all: [Float] = []
    while true {
        let n = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frameCount: 4096) }
        if n == 0 { break }
        all.append(contentsOf: samples[0..<(n * reader.channels)])
    }
    return (reader.rate, reader.channels, all)
}

/// The result of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` with `arguments` in `directory`, feeding no input, and waits for it; after
/// `killAfter` seconds, when given, it is killed (status 137), so a test of a hang cannot hang.
///
/// Its output goes to temporary files, not pipes, so a program that writes much to both streams
/// cannot block on a full pipe while the other is being read.
public func runProcess(_ executable: String, _ arguments: [String], in directory: String? = nil,
                       environment: [String: String]? = nil, killAfter: Double? = nil) throws -> ProcessResult {
    let scratch = TemporaryDirectory("process")
    let outPath = scratch.file("stdout"), errPath = scratch.file("stderr")
    FileManager.default.createFile(atPath: outPath, contents: nil)
    FileManager.default.createFile(atPath: errPath, contents: nil)
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    var attempt = 0
    var launched: Process?
    while launched == nil {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
            launched = process
        } catch let error as NSError where attempt < 3 && isBadDescriptor(error) {
            // Foundation's Process lists the open descriptors to close in the child; another test
            // closing one meanwhile makes the spawn fail with EBADF. Nothing ran: try again.
            attempt += 1
        }
    }
    let process = launched!
    if let killAfter, !waitForExit(process, deadline: killAfter) {
        kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    try out.close()
    try err.close()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self),
        stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
}

/// Whether `error` is (or wraps) EBADF.
func isBadDescriptor(_ error: NSError) -> Bool {
    if error.domain == NSPOSIXErrorDomain, error.code == Int(EBADF) { return true }
    return (error.userInfo[NSUnderlyingErrorKey] as? NSError).map(isBadDescriptor) ?? false
}

/// Runs the built `medrender` in the package root (so `Presets/` and `Sounds/` are found).
public func runMedrender(_ arguments: [String], in directory: String? = nil, killAfter: Double? = nil) throws -> ProcessResult {
    try runProcess(PackagePaths.executable, arguments, in: directory ?? PackagePaths.root, killAfter: killAfter)
}

/// Runs the built `medrender` as a user that file permissions apply to. Root ignores them, so as
/// root it runs as `nobody` through `setpriv`, from a copy of the executable in `dir` (a folder
/// that user can reach); as anyone else it runs as it is. Paths in `arguments` should be in `dir`.
public func runMedrenderUnprivileged(_ arguments: [String], dir: TemporaryDirectory) throws -> ProcessResult {
    guard getuid() == 0 else { return try runProcess(PackagePaths.executable, arguments, in: dir.path) }
    let copy = dir.file(".medrender")
    if !FileManager.default.fileExists(atPath: copy) {
        try FileManager.default.copyItem(atPath: PackagePaths.executable, toPath: copy)
    }
    chmod(copy, 0o755)
    chmod(dir.path, 0o755)
    guard let setpriv = which("setpriv") else {
        return ProcessResult(status: -1, stdout: "", stderr: "setpriv (util-linux) is needed to run as another user")
    }
    return try runProcess(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", copy] + arguments, in: dir.path)
}

/// Starts the built `medrender` with `arguments` in the package root, waits (at most a minute) for
/// a file whose name starts with `prefix` to appear in `folder`, sends `signal`, and waits for the
/// exit. Returns whether the file appeared before the signal, and the exit status.
public func runMedrender(_ arguments: [String], signal: Int32, whenFileIn folder: String, startsWith prefix: String,
                         environment: [String: String]? = nil) throws -> (sawFile: Bool, status: Int32)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: PackagePaths.executable)
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    process.currentDirectoryURL = URL(fileURLWithPath: PackagePaths.root)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    var sawFile = false
    waitUntil(deadline: 60) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        sawFile = names.contains { $0.hasPrefix(prefix) }
        return sawFile || !process.isRunning
    }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    return (sawFile, process.terminationStatus)
}

/// Writes `name` in `dir`: a program that starts a child that sleeps, writes its own process id and
/// the child's, on one line, to the file `pidsFile` (whole: written beside it under another name,
/// then renamed), then waits for the child. Returns its path.
public func writeHangingProgram(_ name: String, in dir: TemporaryDirectory, pidsFile: String) -> String {
    let part = URL(fileURLWithPath: pidsFile).deletingLastPathComponent().appendingPathComponent(".writing-\(name)").path
    let program = dir.write(name, """
        #!/bin/sh
        sleep 1000 &
        echo "$$ $!" > '\(part)' && mv '\(part)' '\(pidsFile)'
        wait

        """)
    chmod(program, 0o755)
    return program
}

/// The process ids in `path` (as `writeHangingProgram`'s program writes them).
public func readProcessIDs(_ path: String) -> [pid_t] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
}

/// Whether process `pid` no longer runs: it does not exist, or it is a zombie (dead, waiting for a
/// parent to reap it; an orphan waits for PID 1, and some containers' PID 1 never reaps).
public func processHasEnded(_ pid: pid_t) -> Bool {
    if kill(pid, 0) == -1, errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
}

/// Waits until process `pid` has ended (`processHasEnded`), checking every 10 ms for at most
/// `seconds` (a limit that only fails a test that would otherwise hang); whether it ended.
public func waitUntilEnded(_ pid: pid_t, seconds: Double = 30) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !processHasEnded(pid) {
        if Date() > deadline { return false }
        usleep(10_000)
    }
    return true
}

/// Waits until `condition` holds, looking again after a short pause that grows from 2 ms to
/// 50 ms, for at most `deadline` seconds; whether it held. The deadline only ends a test that
/// hangs: give one far beyond what the wait takes on a busy machine, and let the test fail on the
/// `false`. Wait on the event itself where there is one (a read that blocks until the peer
/// closes, `ThreadJoin.join`, `waitForExit`); this is for the conditions that have none (a file
/// appears, a metric reaches a value).
@discardableResult
public func waitUntil(deadline: Double = 120, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = Date().addingTimeInterval(deadline)
    var pause: useconds_t = 2_000
    while true {
        if try condition() { return true }
        if Date() >= end { return false }
        usleep(pause)
        pause = min(pause * 2, 50_000)
    }
}

/// Waits for `process` to exit, for at most `deadline` seconds; whether it exited. A thread of its
/// own waits on the exit itself, and this one on that thread's signal.
public func waitForExit(_ process: Process, deadline: Double) -> Bool {
    let exited = ThreadJoin { process.waitUntilExit() }
    return exited.join(deadline: deadline)
}

/// `body` run on a thread of its own, started at once; `join` waits for it to end.
public final class ThreadJoin: Sendable {
    private let ended = DispatchSemaphore(value: 0)

    public init(_ body: @escaping @Sendable () -> Void) {
        let ended = self.ended
        Thread.detachNewThread {
            body()
            ended.signal()
        }
    }

    /// Waits for the body to end, for at most `deadline` seconds; whether it ended. Once it has
    /// ended, every later call answers true at once.
    @discardableResult
    public func join(deadline: Double = 600) -> Bool {
        guard ended.wait(timeout: .now() + deadline) == .success else { return false }
        ended.signal()
        return true
    }
}

/// The path of a program on PATH, or nil.
public func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let p = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: p) { return p }
    }
    return nil
}

/// `PATH` without the folders that hold `piper`: what a machine without Piper finds. The stock
/// renders whose bytes are recorded run with it, so the festival voice their guided presets fall
/// back to speaks them whether or not Piper is installed here (Piper's neural voice is repeatable
/// on one machine, but its samples may differ between processors, as libopus's packets do).
public let pathWithoutPiper: String = {
    let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return dirs.filter { !FileManager.default.isExecutableFile(atPath: "\($0)/piper") }.joined(separator: ":")
}()

/// The `piper` program on `PATH` (`make test` puts `.venv/bin` there), or nil.
public let piperProgram: String? = which("piper")

/// Runs `body` with file permissions applied as they are to an ordinary user, in this process:
/// as root, this thread's file-system user becomes `nobody` (`setfsuid`, which also drops root's
/// file capabilities, for this thread only) and comes back after; as anyone else `body` runs as
/// it is. `body` must not suspend (it has to stay on this thread). `dir` is opened for that user
/// to reach the files in it.
public func withFilePermissionsApplied<T>(in dir: TemporaryDirectory, _ body: () throws -> T) throws -> T {
    guard getuid() == 0 else { return try body() }
    typealias SetFilesystemUser = @convention(c) (UInt32) -> Int32
    guard let symbol = dlsym(nil, "setfsuid") else { throw TestSupportError("setfsuid is not in the C library") }
    let setfsuid = unsafeBitCast(symbol, to: SetFilesystemUser.self)
    chmod(dir.path, 0o755)
    _ = setfsuid(65534)
    defer { _ = setfsuid(0) }
    return try body()
}

/// A test's own set-up failed.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A teacher's take made for a test: phrases of "syllables" (200-ms tones at −12 dBFS with 10-ms
/// raised-cosine edges, 150 ms apart) over a hiss at −60 dBFS RMS, each phrase starting at its
/// time in seconds. Returns the take and each phrase's first and last-plus-one frame of tone.
public func syntheticTake(rate: Int, seconds: Double, phrases: [(start: Double, syllables: Int)],
                          seed: UInt64 = 7) -> (asset: AudioAsset, frames: [Range<Int>]) {
    let count = Int(seconds * Double(rate))
    var samples = [Float](repeating: 0, count: count)
    var state = seed
    let floor = Float(pow(10, -60.0 / 20) * 3.0.squareRoot())  // uniform noise of that RMS
    for i in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        samples[i] = (Float(state >> 40) / Float(1 << 24) * 2 - 1) * floor
    }
    let syllable = rate / 5, space = rate * 3 / 20, edge = rate / 100
    let amplitude = Float(pow(10, -12.0 / 20))
    var frames: [Range<Int>] = []
    for (n, phrase) in phrases.enumerated() {
        let start = Int(phrase.start * Double(rate))
        var end = start
        for s in 0..<phrase.syllables {
            let first = start + s * (syllable + space)
            let pitch = 180.0 + 40 * Double((n + s) % 3)
            for i in 0..<syllable {
                let ramp = min(1, Double(min(i, syllable - 1 - i)) / Double(edge))
                let envelope = Float(0.5 - 0.5 * cos(Double.pi * ramp))
                samples[first + i] += amplitude * envelope * Float(sin(2 * Double.pi * pitch * Double(i) / Double(rate)))
            }
            end = first + syllable
        }
        frames.append(start..<end)
    }
    return (AudioAsset(channels: 1, samples: samples), frames)
}
