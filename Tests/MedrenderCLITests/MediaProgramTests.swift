// SPDX-License-Identifier: Apache-2.0
import Foundation
import MedrenderTestSupport
import Testing

/// medrender loads FFmpeg's libraries, Cairo and Pango only through medrender-media, the program
/// it runs for a video or an M4A/AAC sound: `--version` and an audio render map none of them, a
/// video render runs medrender-media, and without it the error says what is missing.
@Suite struct MediaProgramTests {
    /// Whether `name` is one of the libraries that draw and encode videos and decode M4A/AAC.
    static func isVideoLibrary(_ name: some StringProtocol) -> Bool {
        ["libavformat", "libavcodec", "libavutil", "libswresample", "libswscale", "libcairo", "libpango"].contains { name.contains($0) }
    }

    static var mediaProgram: String {
        URL(fileURLWithPath: PackagePaths.executable).deletingLastPathComponent().appendingPathComponent("medrender-media").path
    }

    /// The libraries the dynamic loader maps for `program` (ldd: its NEEDED entries and theirs).
    static func loaded(_ program: String) throws -> [String] {
        let ldd = try runProcess("/usr/bin/ldd", [program])
        try #require(ldd.status == 0, "\(ldd.stderr)")
        return ldd.stdout.split(separator: "\n").map { String($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
    }

    @Test func medrenderLinksNoVideoLibraryAndMedrenderMediaDoes() throws {
        let main = try Self.loaded(PackagePaths.executable)
        #expect(!main.isEmpty)
        #expect(main.filter { Self.isVideoLibrary($0) }.isEmpty, "\(main)")
        let media = try Self.loaded(Self.mediaProgram)
        for name in ["libavformat", "libavcodec", "libcairo", "libpango"] {
            #expect(media.contains { $0.hasPrefix(name) }, "\(name) in \(media)")
        }
    }

    /// `--version` runs whole (to its exit) with nothing of the video's mapped: its NEEDED
    /// libraries are all it maps, and it opens no other.
    @Test func versionMapsNoVideoLibrary() throws {
        let result = try runProcess(PackagePaths.executable, ["--version"], environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(result.stderr)")
        // The loader's own account of every object it maps, at start or by dlopen.
        let mapped = result.stderr.split(separator: "\n").filter { $0.contains("file=") }
        #expect(!mapped.isEmpty, "LD_DEBUG=files reports what the loader maps")
        #expect(mapped.filter { Self.isVideoLibrary($0) }.isEmpty, "\(mapped)")
    }

    /// Whether one of `pid`'s threads is asleep writing to a pipe (its `wchan`).
    static func waitsOnAPipe(_ pid: pid_t) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? "").contains("pipe_write")
        }
    }

    /// An audio render's `/proc/PID/maps`, read while it is held mid-write: its output goes to a
    /// pipe this test does not read until the pipe is full and the render asleep writing to it, so
    /// the render is in the middle of writing the session (its sounds decoded, its encoder open)
    /// when its maps are read.
    @Test func anAudioRenderMapsNoVideoLibrary() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let reading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let writing = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PackagePaths.executable)
        process.arguments = ["--preset", "box-breath", "--minutes", "1", "--rate", "8000", "--format", "wav", "-o", "-"]
        process.currentDirectoryURL = URL(fileURLWithPath: PackagePaths.root)
        process.standardOutput = writing
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try writing.close()
        let getPipeSize: Int32 = 1032  // F_GETPIPE_SZ, which Swift's Glibc leaves out
        let capacity = Int(fcntl(ends[0], getPipeSize))
        var queued: Int32 = 0
        // A pipe holds its bytes in pages: a writer may wait with a little less than its size queued.
        let held = waitUntil(deadline: 120) {
            _ = ioctl(ends[0], UInt(FIONREAD), &queued)
            return !process.isRunning || (Int(queued) >= capacity / 2 && Self.waitsOnAPipe(process.processIdentifier))
        }
        #expect(held && process.isRunning, "the render filled its pipe (\(queued) of \(capacity) bytes) and waits")
        // Read to its end in reads of its own: a file of /proc has no size to read by.
        let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/maps")?.readDataToEndOfFile() ?? Data(),
                          as: UTF8.self)
        // Drained to the end: the render finishes.
        let output = reading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(output.count > capacity && output.prefix(4) == Data("RIFF".utf8), "a whole WAV came out")
        let files = Set(maps.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first })
        #expect(files.contains { $0.contains("libsndfile") }, "the maps were read while it rendered: \(files.sorted())")
        #expect(files.filter { Self.isVideoLibrary($0) }.isEmpty, "\(files.sorted())")
    }

    /// A stand-in for medrender-media that notes each run in `log`, then runs the real one.
    static func recordingProgram(in dir: TemporaryDirectory, log: String) throws -> String {
        let path = dir.write("media", "#!/bin/sh\necho \"$1\" >> '\(log)'\nexec '\(mediaProgram)' \"$@\"\n")
        chmod(path, 0o755)
        return path
    }

    /// An audio render runs no medrender-media; a video render does, and writes its video.
    @Test func onlyTheVideoRunsMedrenderMedia() throws {
        let dir = TemporaryDirectory("media-runs")
        let log = dir.file("runs")
        let environment = ["MEDRENDER_MEDIA": try Self.recordingProgram(in: dir, log: log)]
        let session = ["--preset", "box-breath", "--no-voice", "--cycles", "1", "--settle", "1", "--closing", "1", "--rate", "16000"]
        let audio = try runProcess(PackagePaths.executable, session + ["-o", dir.file("s.ogg")], in: dir.path, environment: environment)
        #expect(audio.status == 0, "\(audio.stderr)")
        #expect(!FileManager.default.fileExists(atPath: log), "the audio render ran medrender-media")
        let video = try runProcess(PackagePaths.executable, ["video"] + session + ["--size", "256x144", "--fps", "5", "-o", dir.file("s.mp4")],
                                   in: dir.path, environment: environment)
        #expect(video.status == 0, "\(video.stderr)")
        let runs = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(runs.split(separator: "\n") == ["video"], "\(runs)")
        let size = (try? FileManager.default.attributesOfItem(atPath: dir.file("s.mp4"))[.size] as? Int) ?? 0
        #expect(size > 1000, "the video was written")
        #expect(dir.contents() == ["media", "runs", "s.mp4", "s.ogg"], "no temporary file is left")
    }

    /// Without medrender-media, a video and an M4A sound fail with what is missing and how to fix
    /// it (EX_NOINPUT, as a missing input), and an audio render of the stock sounds still works.
    @Test func withoutMedrenderMediaTheErrorSaysWhatIsMissing() throws {
        let dir = TemporaryDirectory("media-missing")
        let environment = ["MEDRENDER_MEDIA": dir.file("nowhere/medrender-media")]
        let session = ["--preset", "box-breath", "--no-voice", "--cycles", "1", "--rate", "16000"]
        let video = try runProcess(PackagePaths.executable, ["video"] + session + ["--size", "256x144", "-o", dir.file("s.webm")],
                                   in: dir.path, environment: environment)
        #expect(video.status == 66, "\(video.stderr)")
        #expect(video.stderr.contains("nowhere/medrender-media") && video.stderr.contains("MEDRENDER_MEDIA"), "\(video.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("s.webm")))
        let audio = try runProcess(PackagePaths.executable, session + ["-o", dir.file("s.ogg")], in: dir.path, environment: environment)
        #expect(audio.status == 0, "\(audio.stderr)")

        let copy = dir.file("bin/medrender")
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: PackagePaths.executable, toPath: copy)
        let memo = dir.write("memo.m4a", "not really an M4A")
        let alone = try runProcess(copy, ["inspect", memo], in: PackagePaths.root, environment: ["MEDRENDER_MEDIA": ""])
        #expect(alone.status == 66, "\(alone.stderr)")
        #expect(alone.stderr.contains("\(dir.file("bin"))/medrender-media") && alone.stderr.contains("is missing")
                && alone.stderr.contains("make install"), "\(alone.stderr)")
    }
}
