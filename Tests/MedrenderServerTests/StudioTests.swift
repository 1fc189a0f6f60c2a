import Foundation
import MedrenderTestSupport
import Testing

/// The studio's endpoints as a client sees them: a preset posted is checked and planned (no
/// render), saved only into `--presets-dir` under a checked name, and heard from a point.
@Suite struct StudioTests {
    static var boxBreath: String {
        (try? String(contentsOfFile: "\(PackagePaths.root)/Presets/box-breath.yaml", encoding: .utf8)) ?? ""
    }

    /// POSTs `body` to `path` with curl: the status and the body.
    static func post(_ server: ServerProcess, _ path: String, _ body: String) throws -> (status: Int, body: String) {
        let name = UUID().uuidString
        let file = server.dir.write("\(name).yaml", body)
        let answer = try server.get(path, name: name, curl: ["-X", "POST", "-H", "Content-Type: application/yaml", "--data-binary", "@\(file)"])
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text.prefix(300))")
    }

    /// The seconds from each exhale cue to the cue after it, from a plan's cue sheet.
    static func exhaleSeconds(_ answer: [String: Any]) throws -> [Double] {
        let sheet = try object(try #require(answer["cueSheet"] as? String))
        let rate = Double(try #require(sheet["rate"] as? Int))
        let cues = try #require(sheet["cues"] as? [[String: Any]])
        var out: [Double] = []
        for (i, cue) in cues.enumerated().dropLast() where cue["kind"] as? String == "exhale" {
            let a = (cue["frame"] as! NSNumber).doubleValue, b = (cues[i + 1]["frame"] as! NSNumber).doubleValue
            out.append((b - a) / rate)
        }
        return out
    }

    @Test func aPostedPresetIsPlannedWithItsTimelineAndCueSheet() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let first = try Self.post(server, "/studio/plan", Self.boxBreath)
        #expect(first.status == 200, "\(first.body)")
        let plan = try Self.object(first.body)
        #expect(plan["ok"] as? Bool == true)
        #expect((plan["svg"] as? String)?.hasPrefix("<svg") == true)
        #expect(plan["cycles"] as? Int ?? 0 > 10)
        let exhales = try Self.exhaleSeconds(plan)
        #expect(!exhales.isEmpty && exhales.allSatisfy { abs($0 - 4) < 1e-3 }, "\(exhales)")
        // The exhale made longer: the plan follows.
        let longer = Self.boxBreath.replacingOccurrences(of: "pattern: 4-4-4-4", with: "pattern: 4-4-7-4")
        let second = try Self.object(try Self.post(server, "/studio/plan", longer).body)
        let longerExhales = try Self.exhaleSeconds(second)
        #expect(!longerExhales.isEmpty && longerExhales.allSatisfy { abs($0 - 7) < 1e-3 }, "\(longerExhales)")
        #expect(second["cycles"] as? Int != plan["cycles"] as? Int)
        #expect(second["svg"] as? String != plan["svg"] as? String)
    }

    /// Whatever is posted, the answer is a message with its status, never a 500.
    @Test(arguments: [
        ("pattern: [4, 4\nminutes: 3\n", 422, "", 0),
        ("name: x\npattern: 4-4-4-4\nminutes: -3\n", 422, "minutes", 3),
        ("name: x\npattern: 4-4-4-4\nminutes: 3\nmaster:\n  loudness: 9\n", 422, "master.loudness", 5),
        ("name: x\npattern: 4-4-4-4\nminutes: 3\nambience:\n  beds:\n    - { sound: /etc/passwd, level: -20 }\n", 422, "outside the library", 6),
        ("name: x\npattern: 4-4-4-4\nminutes: 3\nambience:\n  beds:\n    - { sound: ../../../etc/hosts, level: -20 }\n", 422, "outside the library", 6),
        ("name: x\npattern: 4-4-4-4\nminutes: 3\nambience:\n  beds:\n    - { sound: no-such-sound, level: -20 }\n", 422, "no-such-sound", 6),
        ("", 422, "", 0),
        ("just words", 422, "", 0),
    ])
    func badPresetsAreAnsweredAtTheirLine(yaml: String, status: Int, words: String, line: Int) throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let answer = try Self.post(server, "/studio/plan", yaml)
        #expect(answer.status == status, "\(answer.body)")
        let object = try Self.object(answer.body)
        #expect(object["ok"] as? Bool == false)
        let error = try #require((object["errors"] as? [[String: Any]])?.first, "\(answer.body)")
        let message = "\(error["field"] ?? "") \(error["message"] ?? "")"
        #expect(!(error["message"] as? String ?? "").isEmpty)
        if !words.isEmpty { #expect(message.contains(words), "\(message)") }
        if line > 0 { #expect(error["line"] as? Int == line, "\(answer.body)") }
        #expect(!answer.body.contains(PackagePaths.root), "the library's folder is not the client's business: \(answer.body)")
    }

    @Test func aHugePasteIs413AndAGetIs405() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let huge = "pattern: 4-4-4-4\n" + String(repeating: "# padding\n", count: 100_000)
        let answer = try Self.post(server, "/studio/plan", huge)
        #expect(answer.status == 413, "\(answer.body.prefix(200))")
        #expect(answer.body.contains("KiB"))
        let get = try server.get("/studio/plan")
        #expect(get.status == 405)
        let page = try server.get("/studio")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && html.contains("<textarea id=\"yaml\"") && html.contains("<label for=\"f-exhale\">"))
        #expect(!html.contains("id=\"save\""), "no --presets-dir: no Save button")
        let save = try Self.post(server, "/studio/save?name=mine", Self.boxBreath)
        #expect(save.status == 403 && save.body.contains("--presets-dir"), "\(save.body)")
    }

    @Test func aSaveGoesIntoThePresetsFolderOnlyAndReplacesOnlyWhenAsked() throws {
        let outer = TemporaryDirectory("studio-save")
        let folder = outer.file("presets")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = try ServerProcess(["--presets-dir", folder])
        defer { server.stop() }
        #expect(String(decoding: try server.get("/studio").body, as: UTF8.self).contains("id=\"save\""))
        let first = try Self.post(server, "/studio/save?name=evening-478", Self.boxBreath)
        #expect(first.status == 200, "\(first.body)")
        #expect(try String(contentsOfFile: "\(folder)/evening-478.yaml", encoding: .utf8) == Self.boxBreath)
        // Again without replace: refused, the file unchanged.
        let changed = Self.boxBreath.replacingOccurrences(of: "minutes: 15", with: "minutes: 9")
        let again = try Self.post(server, "/studio/save?name=evening-478", changed)
        #expect(again.status == 409, "\(again.body)")
        #expect(try String(contentsOfFile: "\(folder)/evening-478.yaml", encoding: .utf8) == Self.boxBreath)
        let replaced = try Self.post(server, "/studio/save?name=evening-478&replace=1", changed)
        #expect(replaced.status == 200 && replaced.body.contains("\"replaced\" : true"), "\(replaced.body)")
        #expect(try String(contentsOfFile: "\(folder)/evening-478.yaml", encoding: .utf8) == changed)
        // Names with a path, and presets that do not plan, are refused and write nothing.
        for name in ["..%2Fescaped", "a%2Fb", "..", ".hidden", "", "%2Fetc%2Fx", String(repeating: "n", count: 65)] {
            let bad = try Self.post(server, "/studio/save?name=\(name)", Self.boxBreath)
            #expect(bad.status == 400, "\(name): \(bad.status) \(bad.body)")
        }
        let invalid = try Self.post(server, "/studio/save?name=broken", "pattern: 4-4-4-4\nminutes: -1\n")
        #expect(invalid.status == 422, "\(invalid.body)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(left == ["evening-478.yaml"], "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outer.path).sorted() == ["presets"])
    }

    @Test func aTakeIsHeardFromAPoint() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // A one-minute preset: its settle and closing, as written, must fit its own length.
        let short = Self.boxBreath.replacingOccurrences(of: "minutes: 15", with: "minutes: 1")
            .replacingOccurrences(of: "settle: 20", with: "settle: 12").replacingOccurrences(of: "closing: 30", with: "closing: 12")
        let take = try Self.object(try Self.post(server, "/studio/listen", short).body)
        let url = try #require(take["url"] as? String)
        let duration = try #require(take["durationSeconds"] as? Double)
        #expect(duration == 60)
        let whole = try server.get(url + "?from=0"), late = try server.get(url + "?from=45")
        #expect(whole.status == 200 && late.status == 200)
        #expect(whole.headers.lowercased().contains("content-type: audio/wav"))
        // 48 kHz stereo 16-bit: 192,000 bytes a second after a 44-byte header.
        #expect(whole.body.count == 44 + 60 * 192_000, "\(whole.body.count)")
        #expect(late.body.count == 44 + 15 * 192_000, "\(late.body.count)")
        #expect(whole.body.prefix(4) == Data("RIFF".utf8))
        #expect(try server.get(url + "?from=-3").status == 400)
        #expect(try server.get(url + "?from=600").status == 400)
        #expect(try server.get("/studio/listen/nosuchtake?from=0").status == 404)
        let invalid = try Self.post(server, "/studio/listen", "pattern: nope\n")
        #expect(invalid.status == 422, "\(invalid.body)")
    }

    @Test func theStudioCommandPrintsItsAddress() throws {
        let dir = TemporaryDirectory("studio-command")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PackagePaths.executable)
        process.arguments = ["studio", "--port", "0", "--cache-dir", dir.file("cache")]
        process.currentDirectoryURL = URL(fileURLWithPath: PackagePaths.root)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/studio"), "\(url)")
        let page = try runProcess("/usr/bin/curl", ["-s", "--max-time", "30", url])
        #expect(page.stdout.contains("<title>Studio · medrender</title>"))
        let bad = try runMedrender(["studio", "--presets-dir", dir.file("no-such-folder")])
        #expect(bad.status == 64 && bad.stderr.contains("no such folder"), "\(bad.stderr)")
    }
}
