import Foundation
import MedrenderTestSupport
import Testing

/// The service as a media back end: names only in the library, HEAD, lengths, ranges, ETags, the
/// render cache, limits and keys, health and metrics.
@Suite(.serialized) struct MediaServeTests {
    static let query = "/render?preset=box-breath&minutes=2&rate=16000&format=ogg"

    /// A header's value from curl's dump of the headers (the last response's).
    static func header(_ name: String, _ headers: String) -> String? {
        headers.split(separator: "\r\n").last { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    /// A figure from /metrics.
    static func metric(_ server: ServerProcess, _ name: String) throws -> Double? {
        let text = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    @Test func aPresetIsOnlyANameInTheLibrary() throws {
        // A YAML file in the server's working folder is no preset of its library.
        let folder = TemporaryDirectory("serve-cwd")
        try "secret: do-not-serve\n".write(toFile: folder.file("secret.yaml"), atomically: true, encoding: .utf8)
        let server = try ServerProcess(folder: folder.path)
        defer { server.stop() }
        let secret = try server.get("/presets/secret.yaml"), missing = try server.get("/presets/absent.yaml")
        #expect(secret.status == 404 && missing.status == 404)
        let secretText = String(decoding: secret.body, as: UTF8.self), missingText = String(decoding: missing.body, as: UTF8.self)
        #expect(!secretText.contains("do-not-serve"))
        // The same answer whether or not such a file exists (the name aside).
        #expect(secretText.replacingOccurrences(of: "secret", with: "X") == missingText.replacingOccurrences(of: "absent", with: "X"))
        #expect(try server.get("/presets/secret").status == 404)
        #expect(try server.get("/render?preset=secret").status == 404)
        // No message gives the library's folder.
        for path in ["/presets/secret", "/render?preset=secret", "/cues?preset=box-breath&minutes=0", "/presets/box-breeth"] {
            let text = String(decoding: try server.get(path).body, as: UTF8.self)
            #expect(!text.contains(PackagePaths.root) && !text.contains(folder.path), "\(path): \(text)")
        }
    }

    @Test func methodsPathsAndRepeatsAreAnsweredClearly() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let unknown = try server.get("/nothing")
        #expect(unknown.status == 404 && String(decoding: unknown.body, as: UTF8.self).contains("the paths are /presets"))
        let post = try server.get("/presets", curl: ["-X", "POST"])
        #expect(post.status == 405 && Self.header("allow", post.headers) == "GET, HEAD")
        let sheet = try server.get("/cues?preset=box-breath&sheet=json&sheet=vtt")
        #expect(sheet.status == 400 && String(decoding: sheet.body, as: UTF8.self).contains("given twice"))
        let head = try server.get("/presets", curl: ["-I"])
        let get = try server.get("/presets")
        // (curl -I writes the headers where the body would go: there is no body.)
        #expect(head.status == 200 && String(decoding: head.body, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        #expect(Self.header("content-length", head.headers) == "\(get.body.count)")
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func rangesLengthsAndTagsOfACachedRender() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let whole = try server.get(Self.query)
        #expect(whole.status == 200 && whole.body.count > 10_000)
        let etag = try #require(Self.header("etag", whole.headers))
        #expect(Self.header("accept-ranges", whole.headers) == "bytes")
        #expect(Self.header("cache-control", whole.headers)?.contains("immutable") == true)
        // From the cache: its length, a range of it, the same tag for another spelling of the query.
        let head = try server.get(Self.query, curl: ["-I"])
        #expect(head.status == 200 && head.body.count < 1000 && Self.header("content-length", head.headers) == "\(whole.body.count)")
        let part = try server.get("/render?format=ogg&rate=16000&minutes=2.0&preset=box-breath", curl: ["-r", "1000-1999"])
        #expect(part.status == 206 && Self.header("etag", part.headers) == etag)
        #expect(Self.header("content-range", part.headers) == "bytes 1000-1999/\(whole.body.count)")
        #expect(part.body == whole.body.subdata(in: 1000..<2000))
        let tail = try server.get(Self.query, curl: ["-r", "-100"])
        #expect(tail.status == 206 && tail.body == whole.body.suffix(100))
        let notModified = try server.get(Self.query, curl: ["-H", "If-None-Match: \(etag)"])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        for range in ["2000-1000", "0-10,20-30", "\(whole.body.count)-", "abc"] {
            let refused = try server.get(Self.query, curl: ["-H", "Range: bytes=\(range)"])
            #expect(refused.status == 416, "\(range): \(refused.status)")
            #expect(Self.header("content-range", refused.headers) == "bytes */\(whole.body.count)")
            #expect(!refused.body.isEmpty)
        }
        // One render for all of these.
        #expect(try Self.metric(server, "medrender_renders_total") == 1)
        #expect(try (Self.metric(server, "medrender_cache_hits_total") ?? 0) >= 5)
        #expect(server.log.contains("\"status\":\"206\""))

        // A WAV's length is known from its first bytes, before it is rendered.
        let wav = try server.get("/render?preset=coherent&minutes=1&rate=8000&format=wav&channels=1")
        #expect(wav.status == 200 && Self.header("content-length", wav.headers) == "\(wav.body.count)")
    }

    @Test func aTruncatedEntryIsRenderedAgainAndAnUnwritableCacheStillStreams() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let first = try server.get(Self.query)
        let cache = server.dir.file("cache")
        let entry = try #require(try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.hasSuffix(".ogg") && !$0.hasPrefix(".") })
        let handle = try #require(FileHandle(forWritingAtPath: cache + "/" + entry))
        try handle.truncate(atOffset: 5000)
        try handle.close()
        let again = try server.get(Self.query)
        let same = again.body == first.body
        #expect(again.status == 200 && same)
        #expect(try Self.metric(server, "medrender_renders_total") == 2)

        // A cache folder that is a file: renders stream all the same, and the log says so once.
        let blocked = server.dir.file("not-a-folder")
        try "x".write(toFile: blocked, atomically: true, encoding: .utf8)
        let uncached = try ServerProcess(["--cache-dir", blocked])
        defer { uncached.stop() }
        let one = try uncached.get(Self.query), two = try uncached.get(Self.query)
        let sameBytes = one.body == first.body && two.body == first.body
        #expect(one.status == 200 && two.status == 200 && sameBytes)
        #expect(uncached.log.components(separatedBy: "cannot take a file").count == 2, "\(uncached.log)")
    }

    @Test func theSoundCacheStaysUnderItsBound() throws {
        let server = try ServerProcess(["--sound-cache", "4"])
        defer { server.stop() }
        for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 96000] {
            #expect(try server.get("/cues?preset=sleep&minutes=1&rate=\(rate)").status == 200)
            let held = try #require(try Self.metric(server, "medrender_sound_cache_bytes"))
            #expect(held <= 4 * 1024 * 1024, "\(held) bytes at \(rate) Hz")
        }
    }

    /// Past the connection limit a request gets 503; idle connections are closed by the server.
    /// Two servers: one whose idle timeout (30 s) is far beyond the test's steps, so the three
    /// held connections are surely still open when the fourth comes, and one that closes idle
    /// connections after a second, which a read sees as the connection's end.
    @Test func pastTheConnectionLimitA503AndIdleConnectionsAreClosed() throws {
        let server = try ServerProcess(["--max-connections", "3"])
        defer { server.stop() }
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        // Each held connection has had its answer: the server has taken it.
        for _ in 0..<3 {
            let (fd, head) = try server.openRequest("/healthz", read: 12)
            held.append(fd)
            #expect(String(decoding: head, as: UTF8.self) == "HTTP/1.1 200")
        }
        // The request itself is a fourth connection.
        let refused = try server.get("/presets")
        #expect(refused.status == 503 && Self.header("retry-after", refused.headers) == "5")
        // One held connection closed: a fourth is served again.
        close(held.removeLast())
        #expect(try waitUntil { try server.get("/presets").status == 200 })

        let idle = try ServerProcess(["--idle-timeout", "1"])
        defer { idle.stop() }
        for _ in 0..<3 {
            let (fd, head) = try idle.openRequest("/healthz", read: 0)
            defer { close(fd) }
            // The answer, then the end the server gives an idle connection (a read of 0 bytes,
            // not the deadline, which only a server that never closes it meets).
            let read = RawHTTPResponse.readToClose(fd, deadline: 120)
            let answer = try #require(try RawHTTPResponse(head + read.bytes))
            #expect(answer.status == 200 && answer.isWhole && answer.body == Array("ok\n".utf8), "\(answer.status) \(answer.body.count) bytes")
            #expect(read.closed, "the idle connection was not closed")
        }
        #expect(try idle.get("/presets").status == 200)
    }

    @Test func keysLimitsAndTheLongestRender() throws {
        let dir = TemporaryDirectory("keys")
        let key = "k3y-for-the-test-\(UUID().uuidString)"
        try "# test keys\n\(key)\n".write(toFile: dir.file("keys"), atomically: true, encoding: .utf8)
        let server = try ServerProcess(["--api-keys", dir.file("keys"), "--client-renders-per-minute", "1", "--max-minutes", "1.5"])
        defer { server.stop() }
        let missing = try server.get("/presets"), wrong = try server.get("/presets", curl: ["-H", "Authorization: Bearer not-the-key-at-all"])
        #expect(missing.status == 401 && wrong.status == 401 && missing.body == wrong.body)
        #expect(try server.get("/presets", curl: ["-H", "Authorization: Bearer \(key)"]).status == 200)
        // A key in the query is refused: the server was not started with --allow-query-key.
        #expect(try server.get("/presets?key=\(key)").status == 401)
        #expect(try server.get("/healthz").status == 200)
        let bearer = ["-H", "Authorization: Bearer \(key)"]
        let long = try server.get("/render?preset=box-breath&minutes=2", curl: bearer)
        #expect(long.status == 400 && String(decoding: long.body, as: UTF8.self).contains("this server renders up to 1.5 minutes"))
        #expect(try server.get("/render?preset=box-breath&minutes=1&rate=8000", curl: bearer).status == 200)
        let over = try server.get("/render?preset=box-breath&minutes=1.2&rate=8000", curl: ["-H", "Authorization: Bearer \(key)"])
        #expect(over.status == 429 && Self.header("retry-after", over.headers) != nil)
        #expect(!server.log.contains(key))

        // Beyond loopback without keys, the server does not start.
        let refused = try runMedrender(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 64 && refused.stderr.contains("--allow-anonymous"), "\(refused.stderr)")
    }

    @Test func aClientThatLeavesStopsItsRender() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let (fd, received) = try server.openRequest("/render?preset=sleep&minutes=60&format=wav", read: 65536)
        #expect(String(decoding: received.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        close(fd)
        #expect(try waitUntil { try Self.metric(server, "medrender_renders_running") == 0 })
        let metrics = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("medrender_requests_total{route=\"/render\",status=\"200\"} 1"), "\(metrics)")
        // Nothing of the stopped render is left as an entry.
        let entries = try FileManager.default.contentsOfDirectory(atPath: server.dir.file("cache")).filter { $0.hasSuffix(".wav") }
        #expect(entries.isEmpty, "\(entries)")
    }
}
