import Foundation
import MedrenderTestSupport
import Testing

/// Real players against the server: headless Chromium plays a served OGG and MP3 in an `<audio>`
/// element, reads its duration and plays from minute 14 (the seek served from the cache, with no
/// second render); GStreamer and ffmpeg read a stream and a part of it. A 15-minute session at
/// 8 kHz mono, so that it renders quickly.
@Suite(.serialized) struct MediaClientTests {
    static let session = "preset=box-breath&minutes=15&rate=8000&channels=1"
    static let frames = 15 * 60 * 8000

    /// A page whose `<audio>` plays `url`: on its metadata it notes the duration, seeks to 840 s,
    /// plays, and notes the time once it has played on past the seek; the results are attributes
    /// of the body. Playing takes real time, which the browser's virtual clock does not wait for:
    /// once it plays, the page asks the server's `/healthz` again and again (a fetch under way
    /// holds the virtual clock) until the audio has played on, at most 3,000 times.
    static func page(_ url: String, server: String) -> String {
        """
        <!doctype html><html><body><audio id="a" preload="auto" src="\(url)"></audio><script>
        var a = document.getElementById('a'), b = document.body;
        function put(k, v) { b.setAttribute('data-' + k, String(v)); }
        a.addEventListener('error', function () { put('error', a.error ? a.error.code + ' ' + a.error.message : 'unknown'); put('done', 1); });
        a.addEventListener('loadedmetadata', function () {
          put('duration', a.duration);
          a.currentTime = 840;
        }, { once: true });
        a.addEventListener('seeked', function () {
          put('seeked', a.currentTime);
          a.play().then(function () { put('playing', 1); hold(0); }, function (e) { put('error', 'play: ' + e); put('done', 1); });
        }, { once: true });
        function hold(n) {
          if (b.hasAttribute('data-played') || n >= 3000) return;
          fetch('\(server)/healthz', { mode: 'no-cors', cache: 'no-store' }).then(function () { hold(n + 1); }, function () { hold(n + 1); });
        }
        a.addEventListener('timeupdate', function () {
          if (a.currentTime > 840.05 && !b.hasAttribute('data-played')) { put('played', a.currentTime); put('done', 1); }
        });
        </script></body></html>
        """
    }

    static func attributes(_ dom: String) -> [String: String] {
        guard let body = dom.range(of: "<body"), let end = dom[body.upperBound...].firstIndex(of: ">") else { return [:] }
        var found: [String: String] = [:]
        let tag = String(dom[body.upperBound..<end])
        let regex = try! NSRegularExpression(pattern: "data-([a-z]+)=\"([^\"]*)\"")
        for match in regex.matches(in: tag, range: NSRange(tag.startIndex..., in: tag)) {
            found[String(tag[Range(match.range(at: 1), in: tag)!])] = String(tag[Range(match.range(at: 2), in: tag)!])
        }
        return found
    }

    /// Headless Chromium that plays media without a gesture, silently, on a virtual clock.
    static func chromiumFlags(_ dir: TemporaryDirectory, size: String) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
         "--user-data-dir=\(dir.file("chromium-profile"))", "--window-size=\(size)", "--autoplay-policy=no-user-gesture-required",
         "--mute-audio", "--virtual-time-budget=600000"]
    }

    @Test(.enabled(if: studioChromium != nil, "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"),
          arguments: ["ogg", "mp3"])
    func chromiumPlaysFromMinute14(format: String) throws {
        let browser = try #require(studioChromium)
        let server = try ServerProcess()
        defer { server.stop() }
        let query = "/render?\(Self.session)&format=\(format)"
        // Rendered first by a plain GET (the browser's virtual clock runs on while a render takes
        // real seconds); everything the browser asks then is served from the cache.
        let first = try server.get(query)
        #expect(first.status == 200)
        let file = server.dir.file("player.html")
        try Self.page("http://127.0.0.1:\(server.port)\(query)", server: "http://127.0.0.1:\(server.port)")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let dump = try runProcess(browser, Self.chromiumFlags(server.dir, size: "800,600") + ["--dump-dom", "file://\(file)"],
                                  killAfter: 180)
        let seen = Self.attributes(dump.stdout)
        #expect(seen["error"] == nil, "\(seen)")
        // The duration is the session's, to the players' own precision: an OGG's from its last
        // granule, counted from the first decoded block (within one long Vorbis block, 2048
        // frames, 0.256 s at 8 kHz; ffprobe reads the exact frame count); an MP3's from whole
        // frames (within 0.2 s: one 1152-sample frame plus the encoder's delay).
        let duration = try #require(seen["duration"].flatMap(Double.init), "\(seen) \(dump.stderr.suffix(800))")
        #expect(abs(duration - 900) <= (format == "ogg" ? 0.256 : 0.2), "duration \(duration)")
        let seeked = try #require(seen["seeked"].flatMap(Double.init), "\(seen)")
        #expect(abs(seeked - 840) < 1, "seeked to \(seeked)")
        let played = try #require(seen["played"].flatMap(Double.init), "\(seen)")
        #expect(played > 840.05 && played < 900)
        // One render; the seek was a range served from the cache.
        #expect(try ServeFaultTests.metricSum(server, "medrender_renders_total") == 1)
        #expect(try (ServeFaultTests.metricSum(server, "medrender_cache_hits_total") ?? 0) >= 1)
        let ranges = server.log.split(separator: "\n").filter { $0.contains("\"status\":\"206\"") && $0.contains("format=\(format)") }
        #expect(!ranges.isEmpty, "no range request in the log: \(server.log.suffix(2000))")
    }

    @Test(.enabled(if: which("gst-launch-1.0") != nil && which("gst-discoverer-1.0") != nil,
                   "GStreamer's tools are not installed (Debian packages gstreamer1.0-tools, gstreamer1.0-plugins-base-apps)"))
    func gstreamerReadsAStreamAndFindsItsLength() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/render?\(Self.session)&format=ogg"
        let raw = server.dir.file("gst.raw")
        // The whole stream, decoded: every frame of the session, as 16-bit samples.
        let played = try runProcess(try #require(which("gst-launch-1.0")), [
            "-q", "souphttpsrc", "location=\(url)", "!", "decodebin", "!", "audioconvert", "!",
            "audio/x-raw,format=S16LE,channels=1", "!", "filesink", "location=\(raw)",
        ], killAfter: 180)
        #expect(played.status == 0, "\(played.stderr)")
        let size = (try FileManager.default.attributesOfItem(atPath: raw)[.size] as? NSNumber)?.intValue
        #expect(size == Self.frames * 2)
        // Its length, as the discoverer finds it: it reads the end of the file with a range request,
        // which the cached file answers (the render may still be closing its entry as the stream's
        // last bytes arrive, and a request joining it then gets the stream, with no end to read).
        #expect(try waitUntil { try ServeFaultTests.metricSum(server, "medrender_cache_entries") == 1 })
        do {
            let discoverer = try #require(which("gst-discoverer-1.0"))
            // Ogg's demuxer, fed over HTTP, reads the end in a seek of its own while the pipeline
            // prerolls; on a busy machine the preroll can end first, and the discoverer then
            // reports the demuxer's estimate from the bitrate and `Seekable: no` (its race, seen
            // once in a dozen tries with both cores busy, against a cached file answered whole).
            // So it is asked again then, up to five times; a server that answered no ranges would
            // be unseekable every time.
            // More than its own 10-s timeout: a loaded machine may need it to read the end.
            var found = try runProcess(discoverer, ["--timeout=100", url], killAfter: 120)
            for _ in 1..<5 where found.stdout.contains("Seekable: no") {
                found = try runProcess(discoverer, ["--timeout=100", url], killAfter: 120)
            }
            #expect(found.stdout.contains("Seekable: yes"), "\(found.stdout)")
            // H:MM:SS.fraction; GStreamer counts from the first decoded block, so within one
            // long Vorbis block (2048 frames, 0.256 s at 8 kHz) of the session's 900 s.
            let line = found.stdout.split(separator: "\n").first { $0.contains("Duration:") } ?? ""
            let parts = line.split(separator: " ").last?.split(separator: ":").compactMap { Double($0) } ?? []
            let seconds = parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : -1
            #expect(abs(seconds - 900) <= 0.256, "\(found.stdout)")
        }
        #expect(try ServeFaultTests.metricSum(server, "medrender_renders_total") == 1)
        #expect(server.log.contains("\"status\":\"206\""), "no range request in the log")
    }

    @Test(.enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed (`make test-deps`)"), arguments: ["ogg", "mp3"])
    func ffmpegReadsAStreamAndTheLastMinute(format: String) throws {
        let ffmpeg = try #require(which("ffmpeg"))
        let server = try ServerProcess()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/render?\(Self.session)&format=\(format)"
        func decodedSeconds(_ arguments: [String]) throws -> Double {
            let out = server.dir.file("ffmpeg-\(UUID().uuidString).s16")
            let result = try runProcess(ffmpeg, ["-v", "error", "-nostdin"] + arguments + ["-f", "s16le", "-ac", "1", out], killAfter: 180)
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = (try FileManager.default.attributesOfItem(atPath: out)[.size] as? NSNumber)?.intValue ?? 0
            return Double(bytes / 2) / 8000
        }
        // The whole stream.
        let whole = try decodedSeconds(["-i", url])
        #expect(abs(whole - 900) <= (format == "ogg" ? 0 : 0.2), "\(whole) s decoded")
        // From minute 14: ffmpeg seeks in the served file with a range request.
        let tail = try decodedSeconds(["-ss", "840", "-i", url])
        #expect(abs(tail - 60) < 0.5, "\(tail) s decoded from minute 14")
        #expect(try ServeFaultTests.metricSum(server, "medrender_renders_total") == 1)
        #expect(server.log.contains("\"status\":\"206\""), "no range request in the log")
    }
}
