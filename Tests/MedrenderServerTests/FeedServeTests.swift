import Foundation
import MedrenderTestSupport
import Testing

/// `serve --feed URL`: the feed of a teacher's library served at `/feed.xml`, read by Python's
/// feedparser; its enclosure is the server's own `/render` with its exact length, its transcript
/// the server's WebVTT cue sheet with the guided script's words, and its channel says
/// `podcast:guid` (checked against Python's own UUIDv5) and `podcast:locked`.
@Suite struct FeedServeTests {
    static let python: String? = {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] {
            if let result = try? runProcess(candidate, ["-c", "import feedparser"]), result.status == 0 { return candidate }
        }
        return nil
    }()

    /// A free port on loopback, for a server whose feed must name its own address.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ServeTestError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A teacher's library: the stock guided preset at two minutes, and the feed's settings.
    static func library(_ dir: TemporaryDirectory) throws -> String {
        let folder = dir.file("teacher")
        try FileManager.default.createDirectory(atPath: folder + "/Presets", withIntermediateDirectories: true)
        var yaml = try String(contentsOfFile: "\(PackagePaths.root)/Presets/guided-sleep-478.yaml", encoding: .utf8)
        for (from, to) in [("name: guided-sleep-478", "name: evening"), ("minutes: 12", "minutes: 2"), ("settle: 30", "settle: 20"),
                           ("closing: 40", "closing: 10")] {
            #expect(yaml.contains(from))
            yaml = yaml.replacingOccurrences(of: from, with: to)
        }
        try yaml.write(toFile: folder + "/Presets/evening.yaml", atomically: false, encoding: .utf8)
        try """
            feed:
              title: Evening breaths
              author: A teacher
              image: cover.png
              language: en
              category: Health & Fitness
              explicit: false
              locked: true
              owner: { name: A teacher, email: teacher@example.org }
            """.write(toFile: folder + "/library.yaml", atomically: false, encoding: .utf8)
        return folder
    }

    /// The server renders its feed's episodes when it starts: the feed's first request finds
    /// them in the render cache and renders nothing more, nor does the episode's download.
    @Test func theFeedsEpisodesAreRenderedWhenTheServerStarts() throws {
        let dir = TemporaryDirectory("serve-feed-warm")
        let server = try ServerProcess(["--library", try Self.library(dir), "--feed", "https://example.org"])
        defer { server.stop() }
        // No request for the feed yet: its one episode is rendered all the same.
        #expect(try ServeFaultTests.await(server, "medrender_renders_total", equals: 1) == 1)
        let got = try server.get("/feed.xml", name: "feed")
        #expect(got.status == 200)
        let episode = try server.get("/render?preset=evening&format=mp3", name: "episode")
        #expect(episode.status == 200 && String(decoding: got.body, as: UTF8.self).contains("length=\"\(episode.body.count)\""))
        #expect(try ServeFaultTests.metricSum(server, "medrender_renders_total") == 1)
    }

    @Test(.enabled(if: python != nil, "python3-feedparser is not installed: `make test-deps` installs it"))
    func theServedFeedsEnclosureAndTranscriptAreTheServersOwn() throws {
        let dir = TemporaryDirectory("serve-feed")
        let port = try Self.freePort()
        let base = "http://127.0.0.1:\(port)"
        let server = try ServerProcess(["--port", "\(port)", "--library", try Self.library(dir), "--feed", base])
        defer { server.stop() }
        #expect(server.port == port)
        let got = try server.get("/feed.xml", name: "feed")
        let xml = String(decoding: got.body, as: UTF8.self)
        #expect(got.status == 200, "\(xml)")
        #expect(got.headers.lowercased().contains("content-type: application/rss+xml"))
        let feedPath = dir.file("feed.xml")
        try got.body.write(to: URL(fileURLWithPath: feedPath))

        // feedparser: no bozo flag, one episode (the teacher's one preset), its enclosure and transcript.
        let script = """
            import feedparser, json, sys, uuid
            d = feedparser.parse(sys.argv[1])
            e = d.entries[0]
            print(json.dumps({"bozo": d.bozo, "entries": len(d.entries), "title": d.feed.title,
                              "enclosure": e.enclosures[0].href, "length": e.enclosures[0].length,
                              "guid": str(uuid.uuid5(uuid.UUID("ead4c236-bf58-58c6-a2c6-a6b28d128cb6"), sys.argv[2]))}))
            """
        let parsed = try runProcess(try #require(Self.python), ["-c", script, feedPath, "127.0.0.1:\(port)/feed.xml"])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as! [String: Any]
        #expect(json["bozo"] as? Bool == false || (json["bozo"] as? Int) == 0, "\(json)")
        #expect(json["entries"] as? Int == 1)
        #expect(json["title"] as? String == "Evening breaths")
        let enclosure = try #require(json["enclosure"] as? String)
        #expect(enclosure == "\(base)/render?preset=evening&format=mp3")
        #expect(xml.contains("<podcast:guid>\(try #require(json["guid"] as? String))</podcast:guid>"), "\(xml)")
        #expect(xml.contains("<podcast:locked owner=\"teacher@example.org\">yes</podcast:locked>"))

        // The enclosure as a podcast client downloads it: the length the feed says.
        let length = try #require(Int(json["length"] as? String ?? ""))
        let audio = try server.get(String(enclosure.dropFirst(base.count)), name: "episode")
        #expect(audio.status == 200 && audio.body.count == length, "\(audio.body.count) bytes, the feed says \(length)")
        // Sent whole from the cache it carries its length; while its render still runs it comes
        // chunked (MP3's length is known only when it ends): both are a correct answer.
        let headers = audio.headers.lowercased()
        #expect(headers.contains("content-length: \(length)\r\n") || (!headers.contains("content-length:") && headers.contains("transfer-encoding: chunked")),
                "\(headers)")

        // The transcript: the WebVTT cue sheet with the words the guided script speaks.
        let transcript = try #require(xml.range(of: "<podcast:transcript url=\"[^\"]*\" type=\"text/vtt\"/>", options: .regularExpression))
        let url = String(xml[transcript].split(separator: "\"")[1]).replacingOccurrences(of: "&amp;", with: "&")
        #expect(url.hasPrefix("\(base)/cues?"))
        let vtt = try server.get(String(url.dropFirst(base.count)), name: "vtt")
        let text = String(decoding: vtt.body, as: UTF8.self)
        #expect(vtt.status == 200 && text.hasPrefix("WEBVTT"), "\(text.prefix(200))")
        #expect(text.contains("Settle into bed, and let the day go.") && text.contains("Breathe in for four, hold for seven"), "\(text)")

        // The chapters: Podcasting 2.0 JSON chapters, one per section of the JSON cue sheet, at its times.
        let chaptersTag = try #require(xml.range(of: "<podcast:chapters url=\"[^\"]*\" type=\"application/json\\+chapters\"/>",
                                                 options: .regularExpression), "\(xml)")
        let chaptersURL = String(xml[chaptersTag].split(separator: "\"")[1]).replacingOccurrences(of: "&amp;", with: "&")
        let chapters = try server.get(String(chaptersURL.dropFirst(base.count)), name: "chapters")
        #expect(chapters.status == 200 && chapters.headers.lowercased().contains("content-type: application/json+chapters"))
        let chapterJSON = try #require(try JSONSerialization.jsonObject(with: chapters.body) as? [String: Any])
        #expect(chapterJSON["version"] as? String == "1.2.0")
        let list = try #require(chapterJSON["chapters"] as? [[String: Any]])
        let sheet = try server.get("/cues?preset=evening&format=mp3", name: "sheet")
        let sections = try #require((try JSONSerialization.jsonObject(with: sheet.body) as? [String: Any])?["sections"] as? [[String: Any]])
        #expect(list.count == sections.count && list.count >= 2, "\(list) \(sections)")
        for (chapter, section) in zip(list, sections) {
            #expect(chapter["title"] as? String == section["name"] as? String)
            #expect((chapter["startTime"] as? NSNumber)?.doubleValue == (section["seconds"] as? NSNumber)?.doubleValue)
        }
    }

    @Test func aFeedWithoutItsSettingsSaysWhichAreMissing() throws {
        let dir = TemporaryDirectory("serve-feed-bad")
        let folder = dir.file("bare")
        try FileManager.default.createDirectory(atPath: folder + "/Presets", withIntermediateDirectories: true)
        try "feed:\n  title: Only a title\n".write(toFile: folder + "/library.yaml", atomically: false, encoding: .utf8)
        let result = try runMedrender(["serve", "--port", "0", "--library", folder, "--feed", "https://example.org/"], killAfter: 60)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("the feed needs author, image, language, category, explicit"), "\(result.stderr)")
        let relative = try runMedrender(["serve", "--port", "0", "--feed", "example.org/feed"], killAfter: 60)
        #expect(relative.status == 64, "\(relative.stderr)")
    }
}
