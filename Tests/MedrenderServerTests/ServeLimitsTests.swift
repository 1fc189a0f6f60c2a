import Foundation
import MedrenderTestSupport
import Testing

/// A raw loopback client: a socket from a chosen source address, written and read by hand, for
/// what curl cannot do (stay idle, trickle a request, read slowly, leave).
struct RawClient {
    let fd: Int32

    /// Connects to `port` on 127.0.0.1 from `source` (any address of 127.0.0.0/8).
    init(port: Int, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeTestError("no socket") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
        guard bound == 0, connected == 0 else {
            Glibc.close(fd)
            throw ServeTestError("cannot connect from \(source) to port \(port)")
        }
    }

    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Up to `count` bytes, waiting at most `seconds` for the first; empty at the end of the stream
    /// (or on a reset), nil when nothing came in time.
    func receive(upTo count: Int, waiting seconds: Double) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
        return n > 0 ? Array(buffer[0..<n]) : []
    }

    /// Everything until the server closes, or nil when it has not within `seconds` of silence.
    func receiveToEnd(silence seconds: Double) -> [UInt8]? {
        var all: [UInt8] = []
        while true {
            guard let chunk = receive(upTo: 1 << 16, waiting: seconds) else { return nil }
            if chunk.isEmpty { return all }
            all += chunk
        }
    }

    func close() { _ = Glibc.close(fd) }
}

/// The limits that keep one client from taking the server from everyone, and that cut no honest
/// listener. Each waits for the event it checks (a metric, a closed socket), with a generous bound
/// that only fails a hung test.
@Suite struct ServeLimitsTests {
    @Test func oneAddressCannotTakeEveryConnection() throws {
        let server = try ServerProcess(["--max-connections-per-address", "4"])
        defer { server.stop() }
        // Four idle connections from one address: its share.
        let idle = try (0..<4).map { _ in try RawClient(port: server.port) }
        defer { idle.forEach { $0.close() } }
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_connections") ?? 0 >= 5 })
        // A fifth from it is refused; the probes are answered still; another address is served.
        let fifth = try RawClient(port: server.port)
        defer { fifth.close() }
        #expect(fifth.send("GET /presets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        let refused = String(decoding: fifth.receiveToEnd(silence: 60) ?? [], as: UTF8.self)
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused.prefix(200))")
        #expect(refused.contains("from one client"))
        #expect(try server.get("/healthz").status == 200)
        let other = try RawClient(port: server.port, from: "127.0.0.2")
        defer { other.close() }
        #expect(other.send("GET /presets HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        let served = String(decoding: other.receiveToEnd(silence: 60) ?? [], as: UTF8.self)
        #expect(served.hasPrefix("HTTP/1.1 200"), "\(served.prefix(200))")
    }

    @Test func aRequestTrickledAByteAtATimeIsEndedByTheIdleTimeout() throws {
        let server = try ServerProcess(["--idle-timeout", "2"])
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        #expect(client.send("POST /studio/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4096\r\n\r\n"))
        // A byte each time the server stays silent for a tenth of a second, until it closes.
        var closed = false
        let deadline = Date().addingTimeInterval(120)
        while !closed, Date() < deadline {
            if let answer = client.receive(upTo: 4096, waiting: 0.1) {
                closed = answer.isEmpty || client.receiveToEnd(silence: 60) != nil
            } else if !client.send("a") {
                closed = true
            }
        }
        #expect(closed, "a trickled request kept its connection")
    }

    @Test func aClientReadingSlowlyGetsAllOfItAndOneReadingNothingIsEnded() throws {
        // The idle timer runs from the moment an answer's end is queued, while its last bytes may
        // still wait for a slow reader: at one second, a close it asked then would cut the file.
        let server = try ServerProcess(["--send-timeout", "1", "--idle-timeout", "1"])
        defer { server.stop() }
        // Two minutes of a WAV: more than the kernel's buffers hold, in the cache first.
        let path = "/render?preset=sleep&minutes=2&rate=16000&format=wav"
        let whole = try server.get(path)
        #expect(whole.status == 200)
        let length = whole.body.count
        // A reader that takes 32 KiB every 0.05 s (about 650 KB/s, well under loopback's speed,
        // 12 s for the file): the writes wait on it for longer than the send timeout, yet it is
        // never cut.
        let slow = try RawClient(port: server.port)
        defer { slow.close() }
        var size = Int32(32 << 10)
        setsockopt(slow.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        #expect(slow.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        var received: [UInt8] = []
        while let chunk = slow.receive(upTo: 32 << 10, waiting: 60), !chunk.isEmpty {
            received += chunk
            usleep(50_000)
        }
        let head = try #require(received.firstRange(of: Array("\r\n\r\n".utf8)))
        #expect(received.count - head.upperBound == length, "the slow reader got \(received.count - head.upperBound) of \(length) bytes")

        // A client that takes nothing: once the server has ended it (its connection gone from the
        // count, only the count's own asking left), what it can still read is short of the file.
        let stalled = try RawClient(port: server.port)
        defer { stalled.close() }
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        #expect(stalled.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_bytes_sent_total") ?? 0 > length })
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_connections") == 1 },
                "the server kept a connection whose client takes nothing")
        let rest = stalled.receiveToEnd(silence: 60) ?? []
        #expect(rest.count < length, "a client that took nothing got the whole file")
    }

    /// Makes `library` a library whose one preset, `held`, speaks with a program that waits on a
    /// FIFO the test holds (its synthesis holds a render place for as long as the test wants);
    /// the FIFO's path.
    static func heldLibrary(_ library: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: library.file("Presets"), withIntermediateDirectories: true)
        let fifo = library.file("hold")
        #expect(mkfifo(fifo, 0o600) == 0)
        let tone = library.file("tone.wav")
        #expect(try runProcess("/usr/bin/sox", ["-n", "-r", "16000", "-c", "1", tone, "synth", "1", "sine", "440"]).status == 0)
        let program = library.write("speak.sh", "#!/bin/sh\ncat '\(fifo)' >/dev/null\ncp '\(tone)' \"$2\"\n")
        chmod(program, 0o755)
        _ = library.write("Presets/held.yaml", ServeTrustTests.guided(voice: "{ engine: command, name: \(program) }"))
        return fifo
    }

    @Test func aQueuedRequestWhoseClientLeftGivesItsPlaceBack() throws {
        // A library whose one preset speaks with a program that waits on a FIFO the test holds:
        // its synthesis holds the one render place for as long as the test wants.
        let library = TemporaryDirectory("limits-held")
        let fifo = try Self.heldLibrary(library)
        let server = try ServerProcess(["--library", library.path, "--allow-command-voices", "--max-renders", "1", "--queue", "1"])
        defer { server.stop() }

        let holder = try RawClient(port: server.port)
        defer { holder.close() }
        #expect(holder.send("GET /cues?preset=held HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_running") == 1 })
        let queued = try RawClient(port: server.port)
        #expect(queued.send("GET /render?preset=box-breath&minutes=1&rate=8000&format=wav HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_queued") == 1 })
        // Full: a third is turned away at once.
        #expect(try server.get("/cues?preset=box-breath&minutes=1").status == 503)
        queued.close()
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_queued") == 0 },
                "the queued request whose client left kept its place")
        #expect(try ServeTrustTests.metric(server, "medrender_renders_running") == 1, "the held synthesis lost its place")
        // Its place is free: the next request waits in it, and is served once the synthesis ends.
        let next = try RawClient(port: server.port)
        defer { next.close() }
        #expect(next.send("GET /cues?preset=box-breath&minutes=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_queued") == 1 })
        let writer = open(fifo, O_WRONLY)
        Glibc.close(writer)
        let held = String(decoding: holder.receiveToEnd(silence: 120) ?? [], as: UTF8.self)
        #expect(held.hasPrefix("HTTP/1.1 200"), "\(held.prefix(300))")
        let served = String(decoding: next.receiveToEnd(silence: 120) ?? [], as: UTF8.self)
        #expect(served.hasPrefix("HTTP/1.1 200"), "\(served.prefix(300))")
    }

    /// Blocking work runs on threads of its own, never on the server's tasks: with every render
    /// place held by a synthesis that waits on a FIFO the test holds (on a two-core machine, as
    /// many as Swift's cooperative pool has threads), and a render waiting in the queue, `/healthz`
    /// and `/metrics` answer every time.
    @Test func withEveryRenderPlaceHeldHealthAndMetricsAnswerEveryTime() throws {
        let library = TemporaryDirectory("limits-all-held")
        let fifo = try Self.heldLibrary(library)
        let places = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let server = try ServerProcess(["--library", library.path, "--allow-command-voices", "--max-renders", "\(places)", "--queue", "4"])
        defer { server.stop() }

        var holders: [RawClient] = []
        defer { for holder in holders { holder.close() } }
        for index in 0..<places {
            let holder = try RawClient(port: server.port)
            holders.append(holder)
            // Each asks a render of its own (another length), so none joins another's.
            #expect(holder.send("GET /cues?preset=held&minutes=\(index + 1) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        }
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_running") == places })
        let queued = try RawClient(port: server.port)
        defer { queued.close() }
        #expect(queued.send("GET /render?preset=box-breath&minutes=1&rate=8000&format=wav HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_queued") == 1 })

        let asked = 20
        var answered = 0
        for _ in 0..<asked {
            let health = try server.get("/healthz"), metrics = try server.get("/metrics")
            if health.status == 200, metrics.status == 200 { answered += 1 }
        }
        #expect(answered == asked, "\(answered) of \(asked) asked answered")
        #expect(try ServeTrustTests.metric(server, "medrender_renders_running") == places, "a held place was let go")

        // Let the syntheses go: every reader of the FIFO sees its end (a reader that opens it late
        // gets a writer of its own on the next look), then every request is answered.
        #expect(try waitUntil {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { Glibc.close(writer) }
            return try ServeTrustTests.metric(server, "medrender_renders_running") == 0
                && ServeTrustTests.metric(server, "medrender_renders_queued") == 0
        })
        for client in holders + [queued] {
            let answer = String(decoding: client.receiveToEnd(silence: 120) ?? [], as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
        }
    }

    @Test func aVideoRenderStopsWhenItsClientLeaves() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        // An hour of 720p: far longer than the test waits.
        #expect(client.send("GET /video?preset=box-breath&minutes=60&rate=8000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        // Under way: its file is being written in the cache's folder.
        let folder = server.dir.file("cache")
        #expect(waitUntil {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.contains(".mp4") }
        })
        client.close()
        #expect(try waitUntil { try ServeTrustTests.metric(server, "medrender_renders_running") == 0 },
                "the video went on after its client left")
        #expect(waitUntil { !((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.contains(".mp4") } },
                "the stopped video left its file")
        // A video larger than the server makes is refused before it starts.
        let huge = try server.get("/video?preset=box-breath&minutes=600&size=1080p&fps=60")
        #expect(huge.status == 400, "\(huge.status)")
        #expect(String(decoding: huge.body, as: UTF8.self).contains("megapixels"))
    }

    @Test func theCacheNeverHoldsMoreThanItsSize() throws {
        let server = try ServerProcess(["--cache-size", "1"])
        defer { server.stop() }
        // Larger than the cache: streamed whole, and kept nowhere in it.
        let large = try server.get("/render?preset=sleep&minutes=2&rate=16000&format=wav")
        #expect(large.status == 200 && large.body.count > 1 << 20)
        // Small ones: the cache keeps what fits, never more.
        for minutes in 1...3 {
            #expect(try server.get("/render?preset=box-breath&minutes=\(minutes)&rate=8000&format=ogg").status == 200)
        }
        let folder = server.dir.file("cache")
        let total = try FileManager.default.contentsOfDirectory(atPath: folder).reduce(Int64(0)) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: "\(folder)/\(name)")[.size] as? NSNumber)?.int64Value ?? 0)
        }
        #expect(total <= 1 << 20, "the cache holds \(total) bytes")
    }
}
