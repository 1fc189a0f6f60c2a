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
        #expect(save.status == 403 && save.body.contains("this server saves no presets"), "\(save.body)")
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
        // What was saved is a preset of the library at once: listed (for Start from), opened and
        // rendered by name.
        let list = String(decoding: try server.get("/presets").body, as: UTF8.self)
        #expect(list.contains("\"name\" : \"evening-478\""), "\(list)")
        let opened = String(decoding: try server.get("/presets/evening-478").body, as: UTF8.self)
        #expect(opened.contains("minutes: 9"), "\(opened)")
        let rendered = try server.get("/render?preset=evening-478&minutes=1&rate=8000&channels=1&format=wav")
        #expect(rendered.status == 200 && rendered.body.count > 60 * 8000 * 2, "\(rendered.status) \(rendered.body.count) bytes")
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

    /// A one-minute box-breath whose settle and closing fit its own length.
    static var oneMinute: String {
        boxBreath.replacingOccurrences(of: "minutes: 15", with: "minutes: 1")
            .replacingOccurrences(of: "settle: 20", with: "settle: 12").replacingOccurrences(of: "closing: 30", with: "closing: 12")
    }

    /// The duration ffprobe reads in a file, in seconds.
    static func probedSeconds(_ file: String) throws -> Double? {
        guard let ffprobe = which("ffprobe") else { return nil }
        let probe = try runProcess(ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])
        return Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func everyErrorOfAPresetIsAnsweredAtOnce() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let yaml = """
            name: x
            pattern: 4-4-4-4
            minutes: -3
            cues:
              exhale: { tone: bell, gain: 40 }
            master:
              loudness: 9
              true-peak: 3
            bells:
              every: -2

            """
        let answer = try Self.post(server, "/studio/plan", yaml)
        #expect(answer.status == 422, "\(answer.body)")
        let object = try Self.object(answer.body)
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.compactMap { $0["line"] as? Int } == [3, 5, 7, 8, 10], "\(answer.body)")
        #expect(errors.map { $0["field"] as? String ?? "" } == ["minutes", "cues.exhale.gain", "master.loudness", "master.true-peak", "bells.every"],
                "\(answer.body)")
        #expect(errors.allSatisfy { ($0["column"] as? Int ?? 0) > 0 && !($0["message"] as? String ?? "").isEmpty })
        // The form's outline comes with the errors: the page fills its fields from it.
        let form = try #require(object["form"] as? [[String: Any]], "\(answer.body)")
        let gain = try #require(form.first { $0["path"] as? String == "cues.exhale.gain" })
        #expect(gain["value"] as? String == "40" && gain["line"] as? Int == 5 && gain["column"] as? Int == 31 && gain["inFlow"] as? Bool == true)
        #expect(form.first { $0["path"] as? String == "cues.exhale" }?["style"] as? String == "flow")
        #expect(form.first { $0["path"] as? String == "master" }?["style"] as? String == "block")
        // A syntax error is one error (nothing after it can be read), still at its line.
        let broken = try Self.object(try Self.post(server, "/studio/plan", "pattern: 4-4-4-4\nminutes: [3\nsettle: -1\n").body)
        #expect((broken["errors"] as? [[String: Any]])?.count == 1 && broken["form"] == nil, "\(broken)")
    }

    @Test func aCueIsHeardAsTheSessionPlaysIt() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        for kind in ["inhale", "hold", "exhale", "hold-out"] {
            let name = UUID().uuidString
            let file = server.dir.write("\(name).yaml", Self.oneMinute)
            let answer = try server.get("/studio/cue?kind=\(kind)", name: name,
                                        curl: ["-X", "POST", "-H", "Content-Type: application/yaml", "--data-binary", "@\(file)"])
            #expect(answer.status == 200, "\(kind): \(String(decoding: answer.body, as: UTF8.self).prefix(300))")
            #expect(answer.headers.lowercased().contains("content-type: audio/wav"))
            let wav = server.dir.file("\(kind).wav")
            try answer.body.write(to: URL(fileURLWithPath: wav))
            // Box breathing's phases are 4 s: the cue to the next one, at most 4 s.
            let seconds = try #require(try Self.probedSeconds(wav) ?? Double(answer.body.count - 44) / 192_000)
            #expect(abs(seconds - 4) < 0.01, "\(kind): \(seconds) s")
            // It sounds from its start: the first 50 ms are not silent.
            let samples = answer.body.dropFirst(44).prefix(2400 * 4)
            let peak = stride(from: samples.startIndex, to: samples.endIndex - 1, by: 2).map { i in
                abs(Int(Int16(bitPattern: UInt16(samples[i]) | UInt16(samples[i + 1]) << 8)))
            }.max() ?? 0
            #expect(peak > 300, "\(kind): peak \(peak) in the first 50 ms")
        }
        let noHold = try Self.post(server, "/studio/cue?kind=hold", "name: x\npattern: 4-0-6-0\nminutes: 1\nsettle: 5\nclosing: 5\n")
        #expect(noHold.status == 422 && noHold.body.contains("no hold"), "\(noHold.body)")
        let silent = try Self.post(server, "/studio/cue?kind=inhale", "name: x\npattern: 4-0-6-0\nminutes: 1\nsettle: 5\nclosing: 5\ncues:\n  inhale: none\n")
        #expect(silent.status == 422 && silent.body.contains("none"), "\(silent.body)")
        #expect(try Self.post(server, "/studio/cue?kind=sigh", Self.oneMinute).status == 400)
        let invalid = try Self.post(server, "/studio/cue?kind=inhale", "pattern: 4-4-4-4\nminutes: -1\n")
        #expect(invalid.status == 422 && invalid.body.contains("\"line\" : 2"), "\(invalid.body)")
    }

    @Test func aTakeIsDownloadedInEveryFormatTheRendererWrites() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let take = try Self.object(try Self.post(server, "/studio/listen", Self.oneMinute).body)
        let id = try #require(take["id"] as? String)
        let types = ["ogg": "audio/ogg", "mp3": "audio/mpeg", "flac": "audio/flac", "opus": "audio/ogg; codecs=opus", "wav": "audio/wav"]
        for (format, type) in types.sorted(by: { $0.key < $1.key }) {
            let answer = try server.get("/studio/render/\(id)?format=\(format)")
            #expect(answer.status == 200, "\(format): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            let headers = answer.headers.lowercased()
            #expect(headers.contains("content-type: \(type)"), "\(format): \(answer.headers)")
            #expect(headers.contains("content-disposition: attachment; filename=\"box-breath.\(format)\""), "\(answer.headers)")
            let file = server.dir.file("take.\(format)")
            try answer.body.write(to: URL(fileURLWithPath: file))
            if let seconds = try Self.probedSeconds(file) {
                #expect(abs(seconds - 60) < 0.1, "\(format): \(seconds) s")
            }
        }
        // The same bytes as the command line writes for the same preset.
        let dir = TemporaryDirectory("studio-download")
        let preset = dir.write("box-breath.yaml", Self.oneMinute)
        let cli = try runMedrender(["--preset", preset, "-o", dir.file("cli.ogg")])
        #expect(cli.status == 0, "\(cli.stderr)")
        let served = try Data(contentsOf: URL(fileURLWithPath: server.dir.file("take.ogg")))
        #expect(served == (try? Data(contentsOf: URL(fileURLWithPath: dir.file("cli.ogg")))), "the download is not the command line's render")
        let aiff = try server.get("/studio/render/\(id)?format=aiff")
        #expect(aiff.status == 400)
        #expect(String(decoding: aiff.body, as: UTF8.self).contains("format=aiff is not one medrender writes; choose ogg, wav, flac, opus or mp3"))
        #expect(try server.get("/studio/render/nosuchtake?format=ogg").status == 404)
        // A take whose voice does not fit, known only once its sounds are read: a message, not a 500.
        let tight = Self.oneMinute.replacingOccurrences(of: "settle: 12", with: "settle: 4")
        let tightTake = try Self.object(try Self.post(server, "/studio/listen", tight).body)
        let refused = try server.get("/studio/render/\(try #require(tightTake["id"] as? String))?format=ogg")
        let text = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status == 422 && text.contains("settle") && !text.contains("Presets/"), "\(refused.status) \(text)")
    }

    @Test func aTakeIsHeardAsOggFromAPoint() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let take = try Self.object(try Self.post(server, "/studio/listen", Self.oneMinute).body)
        let url = try #require(take["url"] as? String)
        let late = try server.get(url + "?from=45&format=ogg")
        #expect(late.status == 200 && late.headers.lowercased().contains("content-type: audio/ogg"), "\(late.headers)")
        let file = server.dir.file("late.ogg")
        try late.body.write(to: URL(fileURLWithPath: file))
        if let seconds = try Self.probedSeconds(file) { #expect(abs(seconds - 15) < 0.01, "\(seconds) s") }
        if let ogginfo = which("ogginfo") {
            let info = try runProcess(ogginfo, [file])
            #expect(info.status == 0, "\(info.stdout.suffix(500))")
        }
        #expect(try server.get(url + "?from=0&format=mp3").status == 400)
    }

    @Test func theStudioCommandPrintsItsAddress() throws {
        let dir = TemporaryDirectory("studio-command")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PackagePaths.executable)
        // A library of the teacher's, with a preset of its own, in front of the stock one.
        try FileManager.default.createDirectory(atPath: dir.file("mine/Presets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(PackagePaths.root)/Presets/box-breath.yaml", toPath: dir.file("mine/Presets/teachers-own.yaml"))
        process.arguments = ["studio", "--port", "0", "--cache-dir", dir.file("cache"), "--library", dir.file("mine")]
        process.currentDirectoryURL = URL(fileURLWithPath: PackagePaths.root)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            // A byte at a time: `read(upToCount:)` waits for the whole count (or the end).
            guard let chunk = try out.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/studio"), "\(url)")
        let page = try runProcess("/usr/bin/curl", ["-s", "--max-time", "30", url])
        #expect(page.stdout.contains("<title>Studio · medrender</title>"))
        let presets = try runProcess("/usr/bin/curl", ["-s", "--max-time", "30", url.replacingOccurrences(of: "/studio", with: "/presets")])
        #expect(presets.stdout.contains("\"name\" : \"teachers-own\"") && presets.stdout.contains("\"name\" : \"coherent\""), "\(presets.stdout)")
        let bad = try runMedrender(["studio", "--presets-dir", dir.file("no-such-folder")])
        #expect(bad.status == 64 && bad.stderr.contains("no such folder"), "\(bad.stderr)")
    }
}
