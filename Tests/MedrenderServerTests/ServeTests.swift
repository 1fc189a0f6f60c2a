import Foundation
import MedrenderTestSupport
import Testing

/// `medrender serve` as a client sees it: the built executable serving on a free loopback port,
/// asked with curl (and a raw socket to walk away mid-stream), stopped when the test ends.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let errPath: String
    let dir: TemporaryDirectory

    /// `extra` arguments after the defaults (a cache folder of its own); `folder` is the working
    /// folder (the checkout when nil, with the library found by MEDRENDER_HOME otherwise);
    /// `fileSizeLimit` (bytes) is the most any file the server writes can hold (`prlimit --fsize`),
    /// as on a disk that fills up.
    init(_ extra: [String] = [], folder: String? = nil, cache: Bool = true, environment: [String: String] = [:],
         fileSizeLimit: Int? = nil) throws {
        dir = TemporaryDirectory("serve")
        errPath = dir.file("stderr")
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.executableURL = URL(fileURLWithPath: PackagePaths.executable)
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + (cache ? ["--cache-dir", dir.file("cache")] : []) + extra
        if let fileSizeLimit {
            process.arguments = ["--fsize=\(fileSizeLimit)", PackagePaths.executable] + process.arguments!
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        process.currentDirectoryURL = URL(fileURLWithPath: folder ?? PackagePaths.root)
        if folder != nil {
            process.environment = ProcessInfo.processInfo.environment.merging(["MEDRENDER_HOME": PackagePaths.root]) { $1 }
        }
        if !environment.isEmpty {
            process.environment = (process.environment ?? ProcessInfo.processInfo.environment).merging(environment) { $1 }
        }
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The line that says where it listens: "serving … on http://127.0.0.1:PORT" (a whole line:
        // the number may be written in two pieces).
        var found: Int?
        let errPath = errPath, process = process
        waitUntil(deadline: 120) {
            let text = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
            if let range = text.range(of: "on http://127.0.0.1:"), text[range.upperBound...].contains("\n") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            return found != nil || !process.isRunning
        }
        guard let found, found > 0 else {
            process.terminate()
            throw ServeTestError("the server did not say where it listens: \(String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))")
        }
        port = found
    }

    var log: String { String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self) }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// GETs `path` with curl: the status, the headers and the body's bytes.
    func get(_ path: String, name: String = UUID().uuidString, curl: [String] = []) throws -> (status: Int, headers: String, body: Data) {
        let body = dir.file("\(name).body"), headers = dir.file("\(name).headers")
        let result = try runProcess("/usr/bin/curl", ["-s", "--max-time", "300", "-D", headers, "-o", body, "-w", "%{http_code}"] + curl
                                        + ["http://127.0.0.1:\(port)\(path)"])
        return (Int(result.stdout) ?? -1, (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "",
                FileManager.default.contents(atPath: body) ?? Data())
    }

    /// Opens a connection, asks for `path`, reads `bytes` bytes of the answer (or to its end), and
    /// either closes it or hands the open socket back.
    func openRequest(_ path: String, read bytes: Int) throws -> (socket: Int32, received: [UInt8]) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeTestError("no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw ServeTestError("cannot connect to port \(port)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < bytes {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, bytes - received.count), 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return (fd, received)
    }
}

struct ServeTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite(.serialized) struct ServeTests {
    static let query = "/render?preset=box-breath&minutes=2&rate=16000&format=ogg"

    /// The CLI's bytes for the same options, written to a file, or to standard output (`-o -`)
    /// as the service streams them (a lossy file is decoded back and may be written again with a
    /// correction; a stream cannot be, so an OGG stream is compared with the CLI's stream).
    static func cliBytes(_ dir: TemporaryDirectory, _ arguments: [String], ext: String, streamed: Bool = false) throws -> Data {
        let out = dir.file("cli.\(ext)")
        if streamed {
            let result = try runProcess("/bin/sh", ["-c", "exec \"$0\" \"$@\" -o - > \(out)", PackagePaths.executable] + arguments,
                                        in: PackagePaths.root)
            guard result.status == 0 else { throw ServeTestError("the CLI failed: \(result.stderr)") }
        } else {
            let result = try runMedrender(arguments + ["-o", out])
            guard result.status == 0 else { throw ServeTestError("the CLI failed: \(result.stderr)") }
        }
        return FileManager.default.contents(atPath: out) ?? Data()
    }

    @Test func aStreamedRenderIsTheCLIsFileAndARepeatIsTheSame() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let first = try server.get(Self.query)
        #expect(first.status == 200)
        #expect(first.headers.lowercased().contains("content-type: audio/ogg"))
        let cli = try Self.cliBytes(server.dir, ["--preset", "box-breath", "--minutes", "2", "--rate", "16000"], ext: "ogg",
                                    streamed: true)
        #expect(first.body.count > 10_000)
        // (Compared first: a failed comparison of two large values would be diffed element by element.)
        let sameAsCLI = first.body == cli
        #expect(sameAsCLI, "the stream (\(first.body.count) bytes) differs from the CLI's (\(cli.count) bytes)")
        let repeated = try server.get(Self.query)
        #expect(repeated.status == 200)
        let sameAgain = repeated.body == first.body
        #expect(sameAgain, "a repeat request gave other bytes")
        // It decodes, with ffprobe, to exactly two minutes at 16 kHz.
        let file = server.dir.file("stream.ogg")
        FileManager.default.createFile(atPath: file, contents: first.body)
        if let ffprobe = which("ffprobe") {
            let probe = try runProcess(ffprobe, ["-v", "error", "-show_entries", "stream=duration_ts,sample_rate", "-of", "default=nw=1", file])
            #expect(probe.stdout.contains("duration_ts=1920000"), "\(probe.stdout)")
        }
        // WAV and FLAC too: the same bytes as the CLI's (FLAC follows when done; WAV streams).
        let flac = try server.get("/render?preset=coherent&minutes=2&rate=8000&format=flac&layers=cues,bells")
        #expect(flac.status == 200 && flac.headers.lowercased().contains("audio/flac"))
        let cliFlac = try Self.cliBytes(server.dir, ["--preset", "coherent", "--minutes", "2", "--rate", "8000", "--layers", "cues,bells",
                                                     "--format", "flac"], ext: "flac")
        let sameFLAC = flac.body == cliFlac
        #expect(sameFLAC, "the FLAC (\(flac.body.count) bytes) differs from the CLI's file (\(cliFlac.count) bytes)")
        // One log line per request, with its status.
        // One JSON log line per request, with its status and bytes.
        let line = server.log.split(separator: "\n").first { $0.contains("\"target\":\"/render?preset=box-breath&minutes=2&rate=16000&format=ogg\"") }
        #expect(line?.contains("\"status\":\"200\"") == true && line?.contains("\"bytes\":\"\(first.body.count)\"") == true, "\(server.log)")
    }

    @Test func fourConcurrentRequestsAllComplete() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let minutes = ["1.5", "1.6", "1.7", "1.8"][i]
            let answer = try? server.get("/render?preset=coherent&minutes=\(minutes)&rate=8000&format=wav&channels=1", name: "c\(i)")
            results.set(i, answer.map { ($0.status, $0.body.count) })
        }
        for i in 0..<4 {
            let answer = try #require(results.get(i), "request \(i) got no answer")
            #expect(answer.0 == 200)
            // A 16-bit mono WAV of that length: its header plus two bytes a frame.
            let frames = Int((Double(["1.5", "1.6", "1.7", "1.8"][i])! * 60 * 8000).rounded())
            #expect(answer.1 > frames * 2 && answer.1 < frames * 2 + 4096, "request \(i): \(answer.1) bytes for \(frames) frames")
        }
    }

    @Test func badRequestsGetTheCLIsMessageAndTheRightStatus() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // Each with the command line's own one-line message, the parameter named as the query
        // names it (`minutes=0`, where the command line says `--minutes 0`).
        for (query, name, value, arguments) in [
            ("preset=box-breath&minutes=0", "minutes", "0.0", ["--preset", "box-breath", "--minutes", "0"]),
            ("preset=box-breath&rate=5", "rate", "5", ["--preset", "box-breath", "--rate", "5"]),
            ("preset=relax-4-6&inhale=5.5", "inhale", "5.5", ["--preset", "relax-4-6", "--inhale", "5.5"]),
        ] {
            let answer = try server.get("/render?" + query)
            #expect(answer.status == 400, "\(query): \(answer.status)")
            let cli = try runMedrender(arguments + ["-o", server.dir.file("never.ogg")])
            let message = String(decoding: answer.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(message.hasPrefix("\(name)=\(value) "), "\(query): \(message)")
            #expect(!message.contains("--"), "\(query): the service named a flag: \(message)")
            // The CLI's line, worded for the query and with the library's folder left out, as the service leaves it out.
            let worded = cli.stderr.replacingOccurrences(of: "--\(name) \(value)", with: "\(name)=\(value)")
                .split(separator: " ").map { word in word.contains("/Presets/") ? "Presets/" + word.split(separator: "/").last! : word }
                .joined(separator: " ")
            #expect(worded.contains(message), "\(query): the service said '\(message)', the CLI '\(cli.stderr)'")
        }
        // A name that is not one of its kind: the command line's parser refuses it with the names
        // listed, the service with the library's sentence (the same names); both name the value.
        for (query, message, arguments, listed) in [
            ("preset=box-breath&format=aiff", "format=aiff is not one medrender writes; choose ogg, wav, flac, opus or mp3",
             ["--preset", "box-breath", "--format", "aiff"], "'ogg', 'wav', 'flac', 'opus' or 'mp3'"),
            ("preset=box-breath&layers=cues,drums", "layers=cues,drums names an unknown layer 'drums'; choose from cues, voice, ambience, bells, beats",
             ["--preset", "box-breath", "--layers", "cues,drums"], "'cues', 'voice', 'ambience', 'bells' or 'beats'"),
            ("preset=box-breath&bits=12", "bits=12 is not supported; use 16, 24 or 32f", ["--preset", "box-breath", "--bits", "12"], "'16', '24' or '32f'"),
            ("preset=box-breath&rate=44.1x", "rate=44.1x is not a rate; give whole hertz (44100) or kilohertz (44.1k)",
             ["--preset", "box-breath", "--rate", "44.1x"], "--rate <hz>"),
        ] {
            let answer = try server.get("/render?" + query)
            #expect(answer.status == 400, "\(query): \(answer.status)")
            #expect(String(decoding: answer.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == message)
            let cli = try runMedrender(arguments + ["-o", server.dir.file("never.ogg")])
            #expect(cli.status == 64 && cli.stderr.contains("The value '\(arguments[3])' is invalid") && cli.stderr.contains(listed), "\(cli.stderr)")
        }
        let notANumber = try server.get("/render?preset=box-breath&minutes=abc")
        #expect(notANumber.status == 400 && String(decoding: notANumber.body, as: UTF8.self).contains("minutes=abc is not a number"))
        let unknown = try server.get("/render?preset=box-breath&speed=2")
        #expect(unknown.status == 400 && String(decoding: unknown.body, as: UTF8.self).contains("speed is not a parameter"))
        let noPreset = try server.get("/render?preset=box-breeth")
        #expect(noPreset.status == 404 && String(decoding: noPreset.body, as: UTF8.self).contains("did you mean 'box-breath'"))
        #expect(try server.get("/presets/nothing-here").status == 404)
        #expect(try server.get("/cues?preset=nothing-here").status == 404)
        #expect(try server.get("/render?preset=../../etc/passwd").status == 400)
    }

    @Test func presetsAndCuesAreServed() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let list = try server.get("/presets")
        #expect(list.status == 200)
        let entries = try #require(try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])
        let names = entries.compactMap { $0["name"] as? String }
        let files = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Presets").filter { $0.hasSuffix(".yaml") }
        #expect(Set(names) == Set(files.map { String($0.dropLast(5)) }))
        let one = try server.get("/presets/box-breath")
        #expect(one.status == 200 && String(decoding: one.body, as: UTF8.self).contains("4-4-4-4"))
        // The cue sheet: the CLI's, frame for frame.
        let cues = try server.get("/cues?preset=coherent&minutes=3&rate=44100")
        #expect(cues.status == 200)
        let sheet = server.dir.file("cli.json")
        #expect(try runMedrender(["cues", "--preset", "coherent", "--minutes", "3", "--rate", "44100", "-o", sheet]).status == 0)
        let sameSheet = cues.body == FileManager.default.contents(atPath: sheet)
        #expect(sameSheet, "the cue sheet differs from the CLI's")
        let vtt = try server.get("/cues?preset=coherent&minutes=3&sheet=vtt")
        #expect(vtt.status == 200 && String(decoding: vtt.body, as: UTF8.self).hasPrefix("WEBVTT"))
    }

    @Test func aClientThatLeavesMidStreamLeavesTheServerServing() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // A long render, left after its first 64 KiB.
        let (fd, received) = try server.openRequest("/render?preset=sleep&minutes=60&format=wav", read: 65536)
        #expect(String(decoding: received.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        close(fd)
        // The server goes on: the list, then a whole render, still answer.
        #expect(try server.get("/presets").status == 200)
        let after = try server.get(Self.query)
        #expect(after.status == 200 && after.body.count > 10_000)
        #expect(server.process.isRunning)
    }

    @Test func beyondTheRenderLimitAndQueueTheAnswerIs503WithRetryAfter() throws {
        let server = try ServerProcess(["--max-renders", "1", "--queue", "0"])
        defer { server.stop() }
        // The one place is held by a client that reads a little and then nothing: the render waits
        // for it (a bounded buffer), so the place stays taken.
        let (fd, received) = try server.openRequest("/render?preset=sleep&minutes=60&format=wav", read: 4096)
        defer { close(fd) }
        #expect(String(decoding: received.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        let busy = try server.get(Self.query)
        #expect(busy.status == 503)
        #expect(busy.headers.lowercased().contains("retry-after: 5"))
        // The list is no render: it is served all the same.
        #expect(try server.get("/presets").status == 200)
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int: (Int, Int)] = [:]
    func set(_ i: Int, _ value: (Int, Int)?) { lock.withLock { values[i] = value } }
    func get(_ i: Int) -> (Int, Int)? { lock.withLock { values[i] } }
}
