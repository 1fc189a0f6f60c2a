import Foundation
import MedrenderTestSupport
import Testing

/// Faults a media back end meets: clients that leave early, share a render or read slowly, many
/// idle connections, several servers on one cache folder, a restart, SIGTERM mid-stream, a cache
/// folder that is full, and per-address limits. Each against servers this test starts on loopback,
/// at low rates so the renders are quick; counts come from `/metrics`, never from timing.
@Suite(.serialized) struct ServeFaultTests {
    /// The sum of a metric's lines (every label), or nil when it has none.
    static func metricSum(_ server: ServerProcess, _ name: String) throws -> Double? {
        let text = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        let values = text.split(separator: "\n").filter { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
            .compactMap { Double($0.split(separator: " ").last!) }
        return values.isEmpty ? nil : values.reduce(0, +)
    }

    /// Asks `/metrics` until `name` is `value` (for at most two minutes, which only a hung server
    /// takes); the last value seen.
    static func await(_ server: ServerProcess, _ name: String, equals value: Double) throws -> Double? {
        var seen = try metricSum(server, name)
        try waitUntil {
            seen = try metricSum(server, name)
            return seen == value
        }
        return seen
    }

    /// Asks `/metrics` until its text has `line` (for at most two minutes); whether it came.
    static func await(_ server: ServerProcess, line: String) throws -> Bool {
        try waitUntil { String(decoding: try server.get("/metrics").body, as: UTF8.self).contains(line) }
    }

    /// Runs `bodies` on threads of their own at once and waits for all of them.
    static func together(_ bodies: [@Sendable () -> Void]) {
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            Thread.detachNewThread {
                body()
                group.leave()
            }
        }
        group.wait()
    }

    /// The granule position of the first Ogg page that starts in `bytes`, or nil.
    static func firstGranule(_ bytes: Data) -> Int64? {
        let b = [UInt8](bytes)
        guard b.count >= 14 else { return nil }
        for i in 0..<(b.count - 14) where b[i] == 0x4F && b[i + 1] == 0x67 && b[i + 2] == 0x67 && b[i + 3] == 0x53 {
            var g: Int64 = 0
            for k in (0..<8).reversed() { g = g << 8 | Int64(b[i + 6 + k]) }
            return g
        }
        return nil
    }

    /// The complete entries of a cache folder (no partial files), each checked against the length in its name.
    static func entries(_ folder: String) throws -> (complete: [String], partial: [String]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        var complete: [String] = []
        for name in names where !name.hasPrefix(".") {
            let parts = name.split(separator: ".")
            let size = (try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? NSNumber)?.int64Value
            #expect(parts.count == 3 && Int64(parts[1]) == size, "\(name) holds \(size ?? -1) bytes")
            complete.append(name)
        }
        return (complete, names.filter { $0.hasPrefix(".partial-") })
    }

    // MARK: leaving early

    @Test(arguments: ["flac", "mp3", "opus"])
    func aClientThatLeavesWhileItRendersStopsTheRender(format: String) throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // An hour at 48 kHz: many seconds of work in any pass, against the few milliseconds
        // between the render's thread starting and the client leaving.
        let (fd, received) = try server.openRequest("/render?preset=sleep&minutes=60&format=\(format)", read: 0)
        #expect(received.isEmpty)
        // The client leaves once the render is under way (its thread is working).
        #expect(try Self.await(server, "medrender_render_threads", equals: 1) == 1)
        close(fd)
        // The render's thread ends (it is not left running to the end), stopped, not finished.
        #expect(try Self.await(server, "medrender_renders_stopped_total", equals: 1) == 1)
        #expect(try Self.await(server, "medrender_render_threads", equals: 0) == 0)
        #expect(try Self.metricSum(server, "medrender_renders_total") == 0)
        #expect(try Self.entries(server.dir.file("cache")).complete.isEmpty)
    }

    @Test func aClientThatLeavesDuringPassOneStopsItThere() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // Twelve hours at 8 kHz of a session without a voice (a voiced one's pass 1 measures
        // only its voice for a lossy output): pass 1 alone is many seconds of work.
        let (fd, _) = try server.openRequest("/render?preset=focus-beats&minutes=720&rate=8000&channels=1&format=ogg", read: 0)
        // Once the render is in pass 1, the client leaves.
        #expect(try Self.await(server, line: "medrender_render_threads{pass=\"1\"} 1"))
        close(fd)
        #expect(try Self.await(server, "medrender_render_threads", equals: 0) == 0)
        let text = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        #expect(text.contains("medrender_renders_stopped_total{pass=\"1\"} 1"), "\(text)")
        #expect(try Self.metricSum(server, "medrender_renders_total") == 0)
    }

    @Test func aClientThatLeavesDuringPassThreeStopsItThere() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // 45 minutes of MP3 at 8 kHz: reading the file back to measure it as it decodes (pass 3)
        // is seconds of work, so a stop that waited for the pass's end would be counted as done.
        let (fd, _) = try server.openRequest("/render?preset=box-breath&minutes=45&rate=8000&channels=1&format=mp3", read: 0)
        #expect(try Self.await(server, line: "medrender_render_threads{pass=\"3\"} 1"))
        close(fd)
        #expect(try Self.await(server, "medrender_render_threads", equals: 0) == 0)
        let text = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        #expect(text.contains("medrender_renders_stopped_total{pass=\"3\"} 1"), "\(text)")
        #expect(try Self.metricSum(server, "medrender_renders_total") == 0)
        #expect(try Self.entries(server.dir.file("cache")).complete.isEmpty)
    }

    // MARK: sharing renders

    @Test func aSecondClientJoinsTheRunningRender() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // 48 kHz: an OGG under 44.1 kHz is written whole before it is sent, so it would be done
        // before the second client asked.
        let query = "/render?preset=box-breath&minutes=5&rate=48000&format=ogg"
        // The first client is under way (its first bytes are in) when the second asks.
        let (fd, head) = try server.openRequest(query, read: 200)
        #expect(String(decoding: head.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        let second = try server.get(query)
        close(fd)
        let whole = try server.get(query)
        let same = second.body == whole.body
        #expect(second.status == 200 && same)
        #expect(try Self.metricSum(server, "medrender_renders_total") == 1)
        #expect(try Self.metricSum(server, "medrender_renders_joined_total") == 1)
    }

    @Test func severalServersShareOneCacheFolder() throws {
        let shared = TemporaryDirectory("shared-cache")
        let servers = try (0..<3).map { _ in try ServerProcess(["--cache-dir", shared.file("cache")], cache: false) }
        defer { for server in servers { server.stop() } }
        let query = "/render?preset=coherent&minutes=10&rate=16000&format=ogg"
        let results = GatheredValues<Data>()
        Self.together(servers.map { server in { results.add((try? server.get(query))?.body ?? Data()) } })
        let bodies = results.values
        #expect(bodies.count == 3 && Set(bodies).count == 1 && bodies[0].count > 10_000)
        // One render among the three: the others waited on its lock and read its entry.
        let renders = try servers.map { try Self.metricSum($0, "medrender_renders_total") ?? 0 }.reduce(0, +)
        #expect(renders == 1)
        let (complete, partial) = try Self.entries(shared.file("cache"))
        #expect(complete.count == 1 && partial.isEmpty)
    }

    @Test func aSeekIntoMinute14OfACachedSessionRendersNothing() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let query = "/render?preset=box-breath&minutes=15&rate=8000&channels=1&format=ogg"
        let whole = try server.get(query)
        #expect(whole.status == 200)
        let length = whole.body.count
        let from = length * 14 / 15 + 2000
        let tail = try server.get(query, curl: ["-r", "\(from)-"])
        #expect(tail.status == 206 && tail.body == whole.body.suffix(length - from))
        // The first page in the range is in minute 14.
        let granule = try #require(Self.firstGranule(tail.body))
        #expect(granule >= 14 * 60 * 8000 && granule < 15 * 60 * 8000, "granule \(granule)")
        #expect(try Self.metricSum(server, "medrender_renders_total") == 1)
        #expect(try Self.metricSum(server, "medrender_cache_hits_total") == 1)
    }

    @Test func theCacheSurvivesARestart() throws {
        let folder = TemporaryDirectory("restart")
        let query = "/render?preset=box-breath&minutes=2&rate=8000&format=ogg"
        let first = try ServerProcess(["--cache-dir", folder.file("cache")], cache: false)
        let before = try first.get(query)
        first.stop()
        let second = try ServerProcess(["--cache-dir", folder.file("cache")], cache: false)
        defer { second.stop() }
        let after = try second.get(query)
        let same = after.body == before.body
        #expect(after.status == 200 && same)
        #expect(try Self.metricSum(second, "medrender_renders_total") == 0)
        #expect(try Self.metricSum(second, "medrender_cache_hits_total") == 1)
    }

    // MARK: stopping

    /// A response read off a socket is whole: by its framing (exactly Content-Length bytes, or
    /// the chunk of length 0), and as an Ogg stream (whole pages end to end, each with its own
    /// CRC, the last flagged as the stream's end and no other) of `frames` frames.
    static func expectWholeOgg(_ response: RawHTTPResponse, frames: Int64, _ label: String) {
        #expect(response.status == 200, "\(label): \(response.status)")
        #expect(response.isWhole && response.trailing == 0,
                "\(label): \(response.framing), \(response.body.count) bytes, whole: \(response.isWhole), \(response.trailing) after")
        if case .contentLength(let length) = response.framing { #expect(response.body.count == length, "\(label)") }
        guard let pages = OggPageWalk.pages(response.body), let last = pages.last else {
            Issue.record("\(label): the body (\(response.body.count) bytes) is not whole Ogg pages end to end")
            return
        }
        let wrongChecksums = pages.filter { !$0.checksumMatches }.count
        #expect(wrongChecksums == 0, "\(label): \(wrongChecksums) of \(pages.count) pages have a wrong CRC")
        let flaggedLast = pages.filter { $0.endsStream }.count
        #expect(last.endsStream && flaggedLast == 1, "\(label): \(flaggedLast) pages flagged as the stream's end, the last one: \(last.endsStream)")
        #expect(last.granulePosition == frames, "\(label): the last page ends at frame \(last.granulePosition), not \(frames)")
    }

    /// SIGTERM while streams are sent: within the grace every one ends whole, whichever framing
    /// its answer took (Content-Length when the render was done before the head went out,
    /// chunked while it runs), then the server closes their connections and exits 0, and each
    /// render is a whole entry in the cache.
    @Test func sigtermMidStreamLetsEveryStreamFinish() throws {
        let server = try ServerProcess(["--shutdown-grace", "120"])
        defer { server.stop() }
        // An OGG under 44.1 kHz is written whole before it is sent (its length known); one at
        // 48 kHz is sent as it is encoded.
        let streams: [(query: String, frames: Int64)] = [
            ("/render?preset=box-breath&minutes=10&rate=8000&channels=1&format=ogg", 10 * 60 * 8000),
            ("/render?preset=coherent&minutes=5&rate=48000&format=ogg", 5 * 60 * 48000),
        ]
        // Both are under way (their first bytes are in) when the signal comes.
        let opened = try streams.map { try server.openRequest($0.query, read: 4096) }
        defer { for (fd, _) in opened { close(fd) } }
        for ((query, _), (_, head)) in zip(streams, opened) {
            #expect(String(decoding: head.prefix(12), as: UTF8.self) == "HTTP/1.1 200", "\(query)")
        }
        kill(server.process.processIdentifier, SIGTERM)
        var bodies: [[UInt8]] = []
        for ((query, frames), (fd, head)) in zip(streams, opened) {
            let response = try RawHTTPResponse.read(from: fd, startingWith: head, deadline: 150)
            Self.expectWholeOgg(response, frames: frames, query)
            bodies.append(response.body)
        }
        // The server exits once they are sent (the deadline is for a server that never does),
        // and closes their connections with nothing more sent.
        try #require(waitForExit(server.process, deadline: 150), "the server did not exit")
        #expect(server.process.terminationStatus == 0)
        for ((query, _), (fd, _)) in zip(streams, opened) {
            let rest = RawHTTPResponse.readToClose(fd, deadline: 30)
            #expect(rest.closed && rest.bytes.isEmpty, "\(query): \(rest.bytes.count) bytes more, closed: \(rest.closed)")
        }
        // Each render is in the cache whole: the bytes that were sent.
        let (complete, partial) = try Self.entries(server.dir.file("cache"))
        #expect(complete.count == 2 && partial.isEmpty, "\(complete) \(partial)")
        let stored = Set(complete.compactMap { FileManager.default.contents(atPath: server.dir.file("cache/\($0)")) })
        #expect(stored == Set(bodies.map { Data($0) }), "the cache's entries are not the bytes sent")
    }

    /// SIGTERM while a client has stopped reading: once the grace is over the server exits 0, the
    /// connection is closed with the body cut short (a client can tell by its framing), and no
    /// partial entry is left in the cache.
    @Test func sigtermEndsAStreamPastTheGraceAndLeavesNoPartialEntry() throws {
        let server = try ServerProcess(["--shutdown-grace", "1"])
        defer { server.stop() }
        // A reader that stops reading once the body has begun (after pass 1): 10 minutes of
        // 16 kHz stereo WAV (38 MB) cannot pass through the sockets' few megabytes in the grace.
        let (fd, head) = try server.openRequest("/render?preset=sleep&minutes=10&rate=16000&format=wav", read: 4096)
        defer { close(fd) }
        #expect(String(decoding: head.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        kill(server.process.processIdentifier, SIGTERM)
        // The events in turn: the process's exit, the socket's end, the cache folder's listing.
        try #require(waitForExit(server.process, deadline: 120), "the server did not exit after its grace")
        #expect(server.process.terminationStatus == 0)
        let rest = RawHTTPResponse.readToClose(fd, deadline: 60)
        #expect(rest.closed, "the connection is still open")
        let response = try #require(try RawHTTPResponse(head + rest.bytes))
        #expect(response.status == 200 && response.framing != .toClose && !response.isWhole,
                "\(response.framing), \(response.body.count) bytes, whole: \(response.isWhole)")
        let (_, partial) = try Self.entries(server.dir.file("cache"))
        #expect(partial.isEmpty, "\(partial)")
    }

    // MARK: load

    /// Holds `count` idle connections to `port` open until its standard input closes, printing
    /// how many it opened. A process of its own: a thousand descriptors in the test process itself
    /// would starve the other tests that run beside this one (their pipes and files).
    static let idleHolder = """
        import resource, socket, sys
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
        held = []
        for _ in range(int(sys.argv[2])):
            try:
                held.append(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
            except OSError as error:
                print("stopped:", error, file=sys.stderr)
                break
        print(len(held), flush=True)
        sys.stdin.read()
        """

    @Test func aThousandIdleConnectionsLeaveItResponsive() throws {
        let server = try ServerProcess(["--max-connections", "1100"])
        defer { server.stop() }
        let dir = TemporaryDirectory("idle")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: try #require(which("python3")))
        // A thousand, or what the machine's descriptor limit leaves room for beside the server's own.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let count = limit.rlim_max >= 1080 ? 1000 : max(100, Int(limit.rlim_max) - 80)
        holder.arguments = [dir.write("hold.py", Self.idleHolder), "\(server.port)", "\(count)"]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            line += byte
        }
        let opened = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(opened == count)
        // Asked from another address: the idle ones are past their own address's share, and
        // another client is served beside them.
        let elsewhere = ["--interface", "127.0.0.2"]
        let presets = try server.get("/presets", curl: elsewhere)
        #expect(presets.status == 200 && presets.body.count > 100)
        #expect(try server.get("/render?preset=box-breath&minutes=1&rate=8000", curl: elsewhere).status == 200)
        let open = try #require(try Self.metricSum(server, "medrender_connections"))
        #expect(open >= Double(count), "\(open) connections open")
        #expect(server.process.isRunning)
    }

    /// The server's resident memory, in bytes.
    static func residentBytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    @Test func thirtyRatesKeepTheSoundCacheUnderItsBound() throws {
        let server = try ServerProcess(["--sound-cache", "8"])
        defer { server.stop() }
        // Thirty rates, low ones mostly, so that the sounds resample quickly.
        let rates = [8000, 8800, 9600, 10000, 11025, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000, 20000, 21000,
                     22050, 23000, 24000, 25000, 26000, 27000, 28000, 29000, 30000, 31000, 32000, 36000, 40000, 44100, 48000]
        #expect(rates.count == 30)
        var baseline = 0
        for (n, rate) in rates.enumerated() {
            #expect(try server.get("/cues?preset=sleep&minutes=1&rate=\(rate)").status == 200)
            let held = try #require(try Self.metricSum(server, "medrender_sound_cache_bytes"))
            #expect(held <= 8 * 1024 * 1024, "\(held) bytes held at \(rate) Hz")
            if n == 0 { baseline = Self.residentBytes(server.process.processIdentifier) }
        }
        // Resident memory grows by no more than a few times the bound (the allocator keeps some).
        let grown = Self.residentBytes(server.process.processIdentifier) - baseline
        #expect(grown < 96 << 20, "resident memory grew \(grown >> 20) MiB over 30 rates")
    }

    @Test func twoSlowReadersDoNotHoldTheRenderPlaces() throws {
        let server = try ServerProcess(["--max-renders", "2", "--send-timeout", "120"])
        defer { server.stop() }
        let slow = ["/render?preset=sleep&minutes=3&rate=8000&format=wav", "/render?preset=calming&minutes=3&rate=8000&format=wav"]
        // Two readers as slow as a reader can be: after the first kilobyte they read nothing more
        // (their sockets fill, and the server's writes wait on them).
        let readers = slow.map { try? server.openRequest($0, read: 1024).socket }
        defer { for fd in readers.compactMap({ $0 }) { close(fd) } }
        #expect(readers.allSatisfy { $0 != nil })
        // Their renders finish at full speed into the cache, whatever the readers' pace.
        #expect(try Self.await(server, "medrender_renders_total", equals: 2) == 2)
        #expect(try Self.metricSum(server, "medrender_renders_running") == 0)
        // A normal request is then rendered and sent in full while the slow readers read on.
        let normal = try server.get("/render?preset=box-breath&minutes=1&rate=8000&format=ogg")
        #expect(normal.status == 200 && normal.body.count > 1000)
        #expect(try Self.metricSum(server, "medrender_renders_total") == 3)
    }

    /// True where this process may mount a tmpfs (root, and a machine or container that allows it).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let dir = TemporaryDirectory("mount-probe")
        let folder = dir.file("probe")
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
              (try? runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder]))?.status == 0 else { return false }
        _ = try? runProcess("/bin/umount", [folder])
        return true
    }()

    /// The cache folder is full before the render starts: it streams from a spool file instead.
    /// (A disk that fills during the render is `aDiskThatFillsDuringARenderStillGivesTheWholeRender`,
    /// which needs no mount.)
    @Test(.enabled(if: canMountTmpfs, "mounting a small tmpfs as the cache folder needs root and a machine that allows mounts"))
    func aFullCacheFolderStillStreamsAndSaysSoOnce() throws {
        let dir = TemporaryDirectory("full-cache")
        let folder = dir.file("cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Its user's alone (0700), as the server asks of its cache folder.
        let mounted = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", folder])
        try #require(mounted.status == 0, "cannot mount a tmpfs here: \(mounted.stderr)")
        defer { _ = try? runProcess("/bin/umount", [folder]) }
        let server = try ServerProcess(["--cache-dir", folder], cache: false)
        defer { server.stop() }
        let reference = try ServerProcess()
        defer { reference.stop() }
        for query in ["/render?preset=box-breath&minutes=2&rate=8000&format=ogg", "/render?preset=coherent&minutes=2&rate=8000&format=wav",
                      "/render?preset=box-breath&minutes=2&rate=8000&format=ogg"] {
            let served = try server.get(query), expected = try reference.get(query)
            let same = served.body == expected.body
            #expect(served.status == 200 && same, "\(query): \(served.status), \(served.body.count) bytes")
        }
        #expect(server.log.components(separatedBy: "cannot take a file").count == 2, "\(server.log)")
    }

    /// The disk fills up during a render: the file stops growing at 200 kB (`prlimit --fsize`, the
    /// same refusal a full disk gives a write), and the render goes on in memory instead of failing.
    @Test func aDiskThatFillsDuringARenderStillGivesTheWholeRender() throws {
        let server = try ServerProcess(fileSizeLimit: 200_000)
        defer { server.stop() }
        // 48 kHz: an OGG streamed as it is encoded (under 44.1 kHz it is written whole into the
        // temporary folder first, which this limit would stop, as it stops FLAC, Opus and MP3).
        let query = "/render?preset=box-breath&minutes=1&rate=48000&format=ogg"
        // The same render from a server whose disk has room (a stream's bytes, which a file's
        // may not be: a file is re-encoded when its decoded check asks for it, a stream cannot be).
        let reference = try ServerProcess()
        defer { reference.stop() }
        let expected = try reference.get(query).body
        try #require(expected.count > 400_000, "the render must be larger than the file can hold: \(expected.count) bytes")

        let whole = try server.get(query)
        #expect(whole.status == 200 && whole.body == expected, "\(whole.status), \(whole.body.count) of \(expected.count) bytes")
        // Finished in memory: a HEAD knows its length, and a range past the file's 200 kB comes
        // from memory, the same bytes.
        let head = try server.get(query, curl: ["-I"])
        #expect(MediaServeTests.header("content-length", head.headers) == "\(expected.count)", "\(head.headers)")
        let range = try server.get(query, curl: ["-H", "Range: bytes=150000-350000"])
        #expect(range.status == 206 && range.body == expected[150_000...350_000], "\(range.status), \(range.body.count) bytes")
        // Nothing half-written is kept as a cache entry, and the file's start goes with the render.
        var partials: [String] = []
        try waitUntil {
            partials = try Self.entries(server.dir.file("cache")).partial
            return partials.isEmpty
        }
        let complete = try Self.entries(server.dir.file("cache")).complete
        #expect(partials.isEmpty && complete.isEmpty, "\(partials) \(complete)")
        #expect(server.log.components(separatedBy: "went on in memory").count == 2, "\(server.log)")
    }

    // MARK: limits without keys

    @Test func withoutKeysTheLimitsArePerAddress() throws {
        let server = try ServerProcess(["--client-renders-per-minute", "1"])
        defer { server.stop() }
        #expect(try server.get("/render?preset=box-breath&minutes=1&rate=8000").status == 200)
        let over = try server.get("/render?preset=coherent&minutes=1&rate=8000")
        #expect(over.status == 429 && MediaServeTests.header("retry-after", over.headers).flatMap(Int.init).map { $0 >= 1 && $0 <= 60 } == true)
        // Another address (loopback's 127.0.0.2) has its own share; a cached render takes none.
        #expect(try server.get("/render?preset=coherent&minutes=1&rate=8000", curl: ["--interface", "127.0.0.2"]).status == 200)
        #expect(try server.get("/render?preset=box-breath&minutes=1&rate=8000").status == 200)

        let atOnce = try ServerProcess(["--client-renders", "1"])
        defer { atOnce.stop() }
        // A long render holds this address's one place while it runs.
        let (fd, _) = try atOnce.openRequest("/render?preset=sleep&minutes=120&rate=48000&format=flac", read: 0)
        #expect(try Self.await(atOnce, "medrender_renders_running", equals: 1) == 1)
        let busy = try atOnce.get("/render?preset=coherent&minutes=1&rate=8000")
        #expect(busy.status == 429 && MediaServeTests.header("retry-after", busy.headers) != nil, "\(busy.status)")
        #expect(try atOnce.get("/render?preset=coherent&minutes=1&rate=8000", curl: ["--interface", "127.0.0.2"]).status == 200)
        close(fd)
    }
}

/// Values gathered from several threads.
final class GatheredValues<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Value] = []
    func add(_ value: Value) { lock.withLock { items.append(value) } }
    var values: [Value] { lock.withLock { items } }
}
