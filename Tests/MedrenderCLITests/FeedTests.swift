import Foundation
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// `medrender build --feed URL`: the podcast feed of a built folder, read by a real parser
/// (Python's feedparser) and a real podcast client (gPodder's `gpo`).
@Suite struct FeedTests {
    static let presets = ["box-breath", "coherent"]
    static let fast = ["--minutes", "1.2", "--rate", "8000"]

    /// A settings file with every setting a feed needs, or all but `omitting`.
    static func settings(_ dir: TemporaryDirectory, omitting: Set<String> = []) -> String {
        let lines = [
            "title": "title: Breathing sessions", "author": "author: Example Studio", "image": "image: cover.png",
            "language": "language: en", "category": "category: Health & Fitness\n  subcategory: Mental Health",
            "explicit": "explicit: false",
        ]
        var text = "feed:\n  description: Guided breathing <weekly> & more\n  owner: {name: Example Studio, email: podcast@example.org}\n"
        for key in LibraryFeedSettings.requiredKeys where !omitting.contains(key) { text += "  \(lines[key]!)\n" }
        return dir.write("library.yaml", text)
    }

    /// A Python 3 that has feedparser (Debian's python3-feedparser is for the system's Python).
    static func python() -> String? {
        for candidate in ["/usr/bin/python3", which("python3")].compactMap({ $0 }) {
            if let result = try? runProcess(candidate, ["-c", "import feedparser"]), result.status == 0 { return candidate }
        }
        return nil
    }

    /// The feed as feedparser reads it: bozo, and per entry its id, title, enclosures, duration and links.
    static func parse(_ feedPath: String, python: String, dir: TemporaryDirectory) throws -> [String: Any] {
        let script = dir.write("parse.py", """
            import feedparser, json, sys
            d = feedparser.parse(sys.argv[1])
            print(json.dumps({
                "bozo": int(d.bozo), "bozo_exception": str(d.get("bozo_exception", "")),
                "title": d.feed.get("title"), "author": d.feed.get("author"), "image": d.feed.get("image", {}).get("href"),
                "language": d.feed.get("language"),
                "entries": [{"id": e.get("id"), "title": e.get("title"), "published": e.get("published"),
                             "summary": e.get("summary"), "duration": e.get("itunes_duration"),
                             "enclosures": [{"href": x.get("href"), "length": x.get("length"), "type": x.get("type")}
                                            for x in e.get("enclosures", [])]} for e in d.entries]}))
            """)
        let result = try runProcess(python, [script, feedPath])
        try #require(result.status == 0, "feedparser: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static func manifestEntries(_ path: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["outputs"] as? [[String: Any]])
    }

    static func library(_ dir: TemporaryDirectory) throws -> String {
        let folder = dir.file("presets")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in presets {
            try FileManager.default.copyItem(atPath: "\(PackagePaths.root)/Presets/\(name).yaml", toPath: "\(folder)/\(name).yaml")
        }
        return folder
    }

    /// Checks the feed in `out` against the manifest there: one item per output, each enclosure at
    /// `base/NAME` with the file's exact byte length and MIME type, its GUID from the output's
    /// SHA-256, its duration, chapters and transcript. Returns the GUIDs by file name.
    @discardableResult
    static func checkFeed(_ out: String, base: String, python: String, dir: TemporaryDirectory) throws -> [String: String] {
        let parsed = try parse(out + "/feed.xml", python: python, dir: dir)
        #expect(parsed["bozo"] as? Int == 0, "feedparser: \(parsed["bozo_exception"] ?? "")")
        #expect(parsed["title"] as? String == "Breathing sessions")
        #expect(parsed["author"] as? String == "Example Studio")
        #expect(parsed["image"] as? String == base + "/cover.png")
        let entries = try #require(parsed["entries"] as? [[String: Any]])
        let outputs = try manifestEntries(out + "/manifest.json")
        #expect(entries.count == outputs.count)
        var guids: [String: String] = [:]
        let xml = try String(contentsOfFile: out + "/feed.xml", encoding: .utf8)
        for output in outputs {
            let file = try #require(output["file"] as? String)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: "\(out)/\(file)")[.size] as? Int)
            let sha = try SHA256Hasher.hash(fileAt: "\(out)/\(file)")
            let entry = try #require(entries.first { ($0["enclosures"] as? [[String: Any]])?.first?["href"] as? String == "\(base)/\(file)" },
                                     "no item for \(file)")
            let enclosure = try #require((entry["enclosures"] as? [[String: Any]])?.first)
            #expect(enclosure["length"] as? String == String(size))
            #expect(enclosure["type"] as? String == "audio/ogg")
            #expect(entry["id"] as? String == "urn:sha256:\(sha)")
            #expect(entry["published"] as? String != nil)
            let frames = try #require((output["frames"] as? NSNumber)?.doubleValue), rate = try #require((output["rate"] as? NSNumber)?.doubleValue)
            #expect(entry["duration"] as? String == String(Int((frames / rate).rounded())))
            let preset = try #require(output["preset"] as? String)
            let presetText = try String(contentsOfFile: "\(PackagePaths.root)/Presets/\(preset).yaml", encoding: .utf8)
            let summary = try #require(entry["summary"] as? String)
            #expect(presetText.contains("description: \(summary)"))
            guids[file] = entry["id"] as? String

            // The chapters: one per section of the cue sheet, at its time, in a file beside the output.
            let cueSheets = try #require(output["cueSheets"] as? [String])
            let cue = try #require(cueSheets.first { $0.hasSuffix(".json") })
            let chaptersName = String(cue.dropLast(5)) + ".chapters.json"
            #expect(xml.contains("<podcast:chapters url=\"\(base)/\(chaptersName)\" type=\"application/json+chapters\"/>"))
            let chapters = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/\(chaptersName)"))) as? [String: Any])
            let cueObject = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/\(cue)"))) as? [String: Any])
            let sections = try #require(cueObject["sections"] as? [[String: Any]])
            let list = try #require(chapters["chapters"] as? [[String: Any]])
            #expect(chapters["version"] as? String == "1.2.0")
            #expect(!sections.isEmpty)
            #expect(list.map { $0["title"] as? String } == sections.map { $0["name"] as? String })
            #expect(list.map { ($0["startTime"] as? NSNumber)?.doubleValue } == sections.map { ($0["seconds"] as? NSNumber)?.doubleValue })
            let vtt = try #require(cueSheets.first { $0.hasSuffix(".vtt") })
            #expect(xml.contains("<podcast:transcript url=\"\(base)/\(vtt)\" type=\"text/vtt\"/>"))
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(vtt)"))
        }
        #expect(Set(guids.values).count == outputs.count)
        return guids
    }

    @Test func feedparserReadsTheFeedAndARepeatedBuildKeepsIt() throws {
        let python = try #require(Self.python(), "python3-feedparser is needed (make test installs it)")
        let dir = TemporaryDirectory("feed")
        let presets = try Self.library(dir)
        let out = dir.file("out"), base = "https://example.org/sessions"
        let settings = Self.settings(dir)
        let first = try runMedrender(["build", presets, "-o", out, "--feed", base + "/", "--settings", settings] + Self.fast)
        #expect(first.status == 0, "\(first.stderr)")
        let guids = try Self.checkFeed(out, base: base, python: python, dir: dir)
        #expect(guids.count == 2)
        let feed = try Data(contentsOf: URL(fileURLWithPath: out + "/feed.xml"))

        // Built again: nothing changed, so the same feed, byte for byte: same GUIDs, same dates.
        let again = try runMedrender(["build", presets, "-o", out, "--feed", base + "/", "--settings", settings] + Self.fast)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/feed.xml")) == feed)
        #expect(BuildTests.hiddenFiles(out).isEmpty)

        // Other audio under the same names (another rate): other GUIDs.
        let other = try runMedrender(["build", presets, "-o", out, "--feed", base + "/", "--settings", settings, "--minutes", "1.2", "--rate", "11025"])
        #expect(other.status == 0, "\(other.stderr)")
        let changed = try Self.checkFeed(out, base: base, python: python, dir: dir)
        #expect(Set(changed.keys) == Set(guids.keys))
        for (file, guid) in guids { #expect(changed[file] != guid, "\(file) kept its GUID though its audio changed") }
    }

    @Test func theMergeWritesOneFeedForAllShards() throws {
        let python = try #require(Self.python(), "python3-feedparser is needed (make test installs it)")
        let dir = TemporaryDirectory("feed-merge")
        let presets = try Self.library(dir)
        let base = "http://127.0.0.1:8080/library"
        let settings = Self.settings(dir)
        for k in 1...2 {
            let shard = try runMedrender(["build", presets, "-o", dir.file("shard\(k)"), "--shard", "\(k)/2", "--feed", base, "--settings", settings] + Self.fast)
            #expect(shard.status == 0, "\(shard.stderr)")
            // A shard sees only its part: it writes no feed.
            #expect(!FileManager.default.fileExists(atPath: dir.file("shard\(k)/feed.xml")))
        }
        let merged = dir.file("merged")
        let merge = try runMedrender(["build", "--merge", dir.file("shard1"), dir.file("shard2"), "-o", merged, "--feed", base, "--settings", settings])
        #expect(merge.status == 0, "\(merge.stderr)")
        let guids = try Self.checkFeed(merged, base: base, python: python, dir: dir)
        #expect(guids.count == 2)
    }

    @Test(arguments: [
        (["--feed", "ftp://example.org/x"], "--feed ftp://example.org/x is not an absolute http(s) URL"),
        (["--feed", "sessions/"], "--feed sessions/ is not an absolute http(s) URL"),
        (["--feed", "https://"], "--feed https:// is not an absolute http(s) URL"),
    ])
    func aFeedURLThatIsNotAbsoluteHTTPIsRefused(arguments: [String], message: String) throws {
        let dir = TemporaryDirectory("feed-url")
        let presets = try Self.library(dir)
        let result = try runMedrender(["build", presets, "-o", dir.file("out"), "--settings", Self.settings(dir)] + Self.fast + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    /// A teacher's library (`--library DIR`) publishes with its own `DIR/library.yaml`, and a
    /// library without one is told where to write it.
    @Test func aTeachersLibraryPublishesWithItsOwnSettings() throws {
        let dir = TemporaryDirectory("feed-library")
        let library = dir.file("teacher")
        try FileManager.default.createDirectory(atPath: library + "/Presets", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(PackagePaths.root)/Presets/coherent.yaml", toPath: library + "/Presets/evening.yaml")
        let bare = try runMedrender(["build", "evening", "--library", library, "-o", dir.file("out"), "--feed", "https://example.org/"] + Self.fast)
        #expect(bare.status == 64 && bare.stderr.contains("in \(library)/library.yaml"), "\(bare.stderr)")
        try FileManager.default.moveItem(atPath: Self.settings(dir), toPath: library + "/library.yaml")
        let built = try runMedrender(["build", "evening", "--library", library, "-o", dir.file("out"), "--feed", "https://example.org/"] + Self.fast)
        #expect(built.status == 0, "\(built.stderr)")
        let feed = try String(contentsOfFile: dir.file("out/feed.xml"), encoding: .utf8)
        #expect(feed.contains("<title>Breathing sessions</title>") && feed.contains("evening"), "\(feed.prefix(400))")
    }

    /// A library built in two formats is one episode per session: feedparser reads one item each,
    /// its enclosure in the format named first, and the other file as its alternate enclosure.
    @Test func aSessionInTwoFormatsIsOneEpisodeWithAnAlternate() throws {
        let python = try #require(Self.python(), "python3-feedparser is needed (make test installs it)")
        let dir = TemporaryDirectory("feed-formats")
        let presets = try Self.library(dir)
        let out = dir.file("out"), base = "https://example.org/sessions"
        let built = try runMedrender(["build", presets, "-o", out, "--format", "mp3,ogg", "--feed", base, "--settings", Self.settings(dir)]
                                     + Self.fast)
        try #require(built.status == 0, "\(built.stderr)")
        let outputs = try Self.manifestEntries(out + "/manifest.json")
        #expect(outputs.count == 2 * Self.presets.count)
        let parsed = try Self.parse(out + "/feed.xml", python: python, dir: dir)
        #expect(parsed["bozo"] as? Int == 0, "feedparser: \(parsed["bozo_exception"] ?? "")")
        let entries = try #require(parsed["entries"] as? [[String: Any]])
        #expect(entries.count == Self.presets.count, "\(entries.map { $0["title"] ?? "" })")
        for entry in entries {
            let enclosures = try #require(entry["enclosures"] as? [[String: Any]])
            #expect(enclosures.count == 1 && enclosures[0]["type"] as? String == "audio/mpeg", "\(enclosures)")
        }
        // Each item's alternates, read as XML: the MP3 (the default) and the OGG, each with its
        // file's exact length.
        let script = dir.write("alternates.py", """
            import json, sys, xml.etree.ElementTree as ET
            P = "{https://podcastindex.org/namespace/1.0}"
            items = ET.parse(sys.argv[1]).getroot().iter("item")
            print(json.dumps([[{"type": a.get("type"), "length": a.get("length"), "default": a.get("default"),
                                "uri": a.find(P + "source").get("uri")} for a in i.iter(P + "alternateEnclosure")] for i in items]))
            """)
        let run = try runProcess(python, [script, out + "/feed.xml"])
        try #require(run.status == 0, "\(run.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[[String: Any]]])
        #expect(items.count == Self.presets.count)
        for alternates in items {
            #expect(alternates.map { $0["type"] as? String } == ["audio/mpeg", "audio/ogg"], "\(alternates)")
            #expect(alternates.first?["default"] as? String == "true")
            for alternate in alternates {
                let uri = try #require(alternate["uri"] as? String)
                let file = String(uri.dropFirst(base.count + 1))
                let size = try #require(try FileManager.default.attributesOfItem(atPath: "\(out)/\(file)")[.size] as? Int)
                #expect(alternate["length"] as? String == String(size), "\(file)")
            }
        }
    }

    @Test func missingSettingsAreNamedBeforeAnythingIsBuilt() throws {
        let dir = TemporaryDirectory("feed-settings")
        let presets = try Self.library(dir)
        let settings = Self.settings(dir, omitting: ["image", "explicit"])
        let result = try runMedrender(["build", presets, "-o", dir.file("out"), "--feed", "https://example.org/", "--settings", settings] + Self.fast)
        #expect(result.status == 64)
        #expect(result.stderr.contains("the feed needs image, explicit; add them under 'feed:'"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))

        let typo = dir.write("typo.yaml", "feed:\n  titel: x\n")
        let bad = try runMedrender(["build", presets, "-o", dir.file("out"), "--feed", "https://example.org/", "--settings", typo] + Self.fast)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("feed.titel is not a feed setting"), "\(bad.stderr)")
    }

    @Test func gpodderSubscribesAndDownloadsEveryEpisodeByteForByte() throws {
        let gpo = try #require(which("gpo"), "gPodder's gpo is needed (make test installs gpodder)")
        let python = try #require(Self.python(), "python3 is needed")
        let dir = TemporaryDirectory("feed-gpo")
        let presets = try Self.library(dir)
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        // A static server on a free loopback port, serving the build's folder.
        let portFile = dir.file("port")
        let script = dir.write("serve.py", """
            import functools, http.server, os, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(server.server_port))
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            server.serve_forever()
            """)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = [script, out, portFile]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            // SIGKILL: a child of the test runner may not be stopped by SIGTERM.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // The port file appears whole (written beside it, then renamed).
        var port: String?
        waitUntil(deadline: 120) {
            port = try? String(contentsOfFile: portFile, encoding: .utf8)
            return port != nil || !server.isRunning
        }
        let base = "http://127.0.0.1:\(try #require(port, "the server did not start"))"

        let build = try runMedrender(["build", presets, "-o", out, "--feed", base, "--settings", Self.settings(dir)] + Self.fast)
        #expect(build.status == 0, "\(build.stderr)")

        let home = dir.file("gpo-home"), downloads = dir.file("gpo-downloads")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let environment = ["HOME": home, "GPODDER_HOME": home + "/gPodder", "GPODDER_DOWNLOAD_DIR": downloads]
        let subscribe = try runProcess(gpo, ["subscribe", base + "/feed.xml"], environment: environment, killAfter: 120)
        #expect(subscribe.status == 0, "gpo subscribe: \(subscribe.stdout) \(subscribe.stderr)")
        let outputs = try Self.manifestEntries(out + "/manifest.json").compactMap { $0["file"] as? String }
        // Every episode the client sees as new, as a listener's "download all" does.
        let download = try runProcess(gpo, ["download"], environment: environment, killAfter: 120)
        #expect(download.status == 0, "gpo download: \(download.stdout) \(download.stderr)")
        #expect(download.stdout.contains("\(outputs.count) episodes downloaded"), "gpo download: \(download.stdout)")

        var downloaded: [String] = []
        if let walker = FileManager.default.enumerator(atPath: downloads) {
            for case let name as String in walker {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: downloads + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
                    downloaded.append(downloads + "/" + name)
                }
            }
        }
        #expect(downloaded.count == outputs.count, "downloaded \(downloaded)")
        var builtByHash: [String: String] = [:]
        for output in outputs { builtByHash[try SHA256Hasher.hash(fileAt: "\(out)/\(output)")] = output }
        for file in downloaded {
            let hash = try SHA256Hasher.hash(fileAt: file)
            let built = try #require(builtByHash[hash], "\(file) is not byte-identical to any output")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: URL(fileURLWithPath: "\(out)/\(built)")))
            builtByHash[hash] = nil
        }
        #expect(builtByHash.isEmpty, "not downloaded: \(builtByHash.values.sorted())")
    }
}
