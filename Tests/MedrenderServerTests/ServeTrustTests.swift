import Foundation
import MedrenderTestSupport
import Testing

/// What a request may not make the server do, as a client and a browser see it: run a program,
/// read a file outside the library, be driven by a page of another site, hold places it left,
/// take every connection, or leave a key in the log.
@Suite struct ServeTrustTests {
    /// A small preset with a guide spoken by `voice`.
    static func guided(voice: String, extra: String = "") -> String {
        """
        name: trust
        pattern: 4-4-4-4
        minutes: 2
        \(extra)
        guide:
          voice: \(voice)
          lines:
            - say: "Welcome."
        """
    }

    /// A program that, if it ever ran, would leave `marker` behind.
    static func markingProgram(_ dir: TemporaryDirectory, marker: String) throws -> String {
        let path = dir.write("speak.sh", "#!/bin/sh\ntouch '\(marker)'\nexit 1\n")
        chmod(path, 0o755)
        return path
    }

    /// The metric `name`'s value in `/metrics`, or nil.
    static func metric(_ server: ServerProcess, _ name: String) throws -> Int? {
        let text = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    @Test func aPostedPresetRunsNoProgramOnAnyStudioRoute() throws {
        let saves = TemporaryDirectory("trust-save")
        let server = try ServerProcess(["--presets-dir", saves.path])
        defer { server.stop() }
        let marker = server.dir.file("ran")
        let program = try Self.markingProgram(server.dir, marker: marker)
        let yaml = Self.guided(voice: "{ engine: command, name: \(program) }")
        for path in ["/studio/plan", "/studio/listen", "/studio/cue?kind=inhale", "/studio/save?name=evil"] {
            let answer = try StudioTests.post(server, path, yaml)
            #expect((400..<500).contains(answer.status), "\(path): \(answer.status) \(answer.body)")
            #expect(answer.body.contains("'command' engine"), "\(path): \(answer.body)")
        }
        // The short spelling too.
        let short = try StudioTests.post(server, "/studio/plan", Self.guided(voice: "command:\(program)"))
        #expect((400..<500).contains(short.status), "\(short.body)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the program ran")
    }

    @Test func aLibraryPresetNamesAProgramOnlyWhenTheOperatorAllowsIt() throws {
        let library = TemporaryDirectory("trust-library")
        try FileManager.default.createDirectory(atPath: library.file("Presets"), withIntermediateDirectories: true)
        let marker = library.file("ran")
        let program = try Self.markingProgram(library, marker: marker)
        _ = library.write("Presets/own.yaml", Self.guided(voice: "{ engine: command, name: \(program) }"))
        let server = try ServerProcess(["--library", library.path])
        defer { server.stop() }
        let refused = try server.get("/cues?preset=own")
        #expect(refused.status == 400, "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        #expect(!FileManager.default.fileExists(atPath: marker), "the program ran without --allow-command-voices")

        let allowing = try ServerProcess(["--library", library.path, "--allow-command-voices"])
        defer { allowing.stop() }
        // The program runs (and fails: it writes no audio), which the answer says.
        let ran = try allowing.get("/cues?preset=own")
        #expect(ran.status == 400, "\(ran.status)")
        #expect(FileManager.default.fileExists(atPath: marker), "the operator's own preset did not run its program")
    }

    /// Each thing a preset names as a file: a sound, a clip, a cover.
    static let pathFields: [(String, String)] = [
        ("sound", "ambience:\n  beds:\n    - { sound: \"PATH\", level: -30 }"),
        ("clip", "guide:\n  lines:\n    - clip: \"PATH\""),
        ("cover", "metadata:\n  cover: \"PATH\""),
    ]

    @Test(arguments: pathFields)
    func aPathOutsideTheLibraryGetsTheSameAnswerWhetherOrNotItExists(field: String, template: String) throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let outside = TemporaryDirectory("trust-outside")
        let name = field == "cover" ? "cover.png" : "sound.wav"
        try FileManager.default.createDirectory(atPath: outside.file("here"), withIntermediateDirectories: true)
        // A real file (a copy of a stock sound, or a PNG's signature) and the same name where there is none.
        let stock = "\(PackagePaths.root)/Sounds/bell.ogg"
        try FileManager.default.copyItem(atPath: stock, toPath: outside.file("here/\(name)"))
        var answers: [String] = []
        for folder in ["here", "absent"] {
            for spelling in [outside.file("\(folder)/\(name)"), "../../../../../../..\(outside.file("\(folder)/\(name)"))"] {
                let yaml = "name: trust\npattern: 4-4-4-4\nminutes: 1\n" + template.replacingOccurrences(of: "PATH", with: spelling) + "\n"
                let answer = try StudioTests.post(server, "/studio/plan", yaml)
                #expect(answer.status == 422, "\(field) \(spelling): \(answer.status) \(answer.body)")
                #expect(answer.body.contains("outside the library"), "\(field): \(answer.body)")
                // The errors with the spelling taken out, so the two folders can be compared.
                let errors = try StudioTests.object(answer.body)["errors"] ?? []
                let text = String(decoding: try JSONSerialization.data(withJSONObject: errors, options: [.sortedKeys]), as: UTF8.self)
                answers.append(text.replacingOccurrences(of: spelling.replacingOccurrences(of: "/", with: "\\/"), with: "PATH")
                    .replacingOccurrences(of: spelling, with: "PATH"))
            }
        }
        #expect(answers[0] == answers[2] && answers[1] == answers[3],
                "the answers differ between a file that exists and one that does not: \(answers)")
    }

    @Test func aPageOfAnotherOriginOrAForeignHostIsRefusedAndNothingRuns() throws {
        let saves = TemporaryDirectory("trust-origin")
        let server = try ServerProcess(["--presets-dir", saves.path, "--allow-origin", "https://app.example"])
        defer { server.stop() }
        let yaml = server.dir.write("box.yaml", StudioTests.boxBreath)
        func post(_ path: String, _ headers: [String]) throws -> Int {
            try server.get(path, curl: ["-X", "POST", "--data-binary", "@\(yaml)"] + headers.flatMap { ["-H", $0] }).status
        }
        // A page of another site posts as a form may (text/plain), or as a fetch would.
        #expect(try post("/studio/save?name=evil", ["Origin: https://evil.example", "Content-Type: text/plain"]) == 403)
        #expect(try post("/studio/plan", ["Origin: null"]) == 403)
        #expect(try post("/studio/save?name=evil", ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors"]) == 403)
        // Another site's page may embed a session's audio, as a media element asks for it.
        #expect(try server.get("/render?preset=box-breath&minutes=1&rate=8000&format=wav",
                               curl: ["-H", "Sec-Fetch-Site: cross-site", "-H", "Sec-Fetch-Mode: no-cors"]).status == 200)
        #expect(try saves.contents().isEmpty, "a cross-origin save wrote \(try saves.contents())")
        // A name that points at this server (DNS rebinding): refused on every route but /healthz.
        let rebound = try server.get("/render?preset=box-breath&minutes=1&rate=8000&format=wav", curl: ["-H", "Host: evil.example:\(server.port)"])
        #expect(rebound.status == 403, "\(rebound.status)")
        #expect(try server.get("/presets", curl: ["-H", "Host: evil.example"]).status == 403)
        #expect(try server.get("/healthz", curl: ["-H", "Host: evil.example"]).status == 200)
        #expect(try Self.metric(server, "medrender_cache_misses_total") == 1, "a refused request started a render")
        // Its own page, and the origin it was started with, may.
        #expect(try post("/studio/save?name=own", ["Origin: http://127.0.0.1:\(server.port)"]) == 200)
        #expect(try post("/studio/plan", ["Origin: https://app.example"]) == 200)
        #expect(try server.get("/presets", curl: ["-H", "Host: localhost:\(server.port)"]).status == 200)
        // A preflight grants nothing to another origin, and the listed one what its routes take.
        let denied = try server.get("/studio/plan", curl: ["-X", "OPTIONS", "-H", "Origin: https://evil.example",
                                                          "-H", "Access-Control-Request-Method: POST"])
        #expect(denied.status == 204 && !denied.headers.lowercased().contains("access-control-allow-origin"), "\(denied.headers)")
        let granted = try server.get("/studio/plan", curl: ["-X", "OPTIONS", "-H", "Origin: https://app.example",
                                                           "-H", "Access-Control-Request-Method: POST"])
        #expect(granted.status == 204 && granted.headers.lowercased().contains("access-control-allow-origin: https://app.example"),
                "\(granted.headers)")
    }

    @Test func aKeyIsNeverLoggedHoweverItIsSpelledNorPutInAPage() throws {
        let dir = TemporaryDirectory("trust-keys")
        let key = "k3y-" + UUID().uuidString
        // Written with CRLF line ends, as on Windows.
        let keys = dir.write("keys", "# keys\r\n\(key)\r\n")
        let server = try ServerProcess(["--api-keys", keys])
        defer { server.stop() }
        let bearer = ["-H", "Authorization: Bearer \(key)"]
        #expect(try server.get("/presets", curl: bearer).status == 200, "the key of a CRLF file is refused")
        for spelling in ["key", "%6Bey", "k%65y", "KEY"] {
            let answer = try server.get("/presets?\(spelling)=\(key)")
            #expect(answer.status == 401, "\(spelling): a key in the query is taken without --allow-query-key")
        }
        let page = try server.get("/preview?preset=box-breath&minutes=1&rate=8000", curl: bearer)
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(!html.contains(key), "the key is in the preview page")
        // The page's audio asks with a grant for that render alone.
        let source = try #require(html.range(of: #"/render\?[^"]*grant=[0-9a-f]+"#, options: .regularExpression)
            .map { String(html[$0]).replacingOccurrences(of: "&amp;", with: "&") })
        #expect(try server.get(source, curl: ["-I"]).status == 200, "the page's own grant is refused: \(source)")
        let other = source.replacingOccurrences(of: "minutes=1", with: "minutes=2")
        #expect(try server.get(other, curl: ["-I"]).status == 401, "a grant opens another render")

        let querying = try ServerProcess(["--api-keys", keys, "--allow-query-key"])
        defer { querying.stop() }
        for spelling in ["key", "%6Bey", "k%65y"] {
            #expect(try querying.get("/presets?\(spelling)=\(key)").status == 200, "\(spelling)")
        }
        server.stop()
        querying.stop()
        #expect(!server.log.contains(key) && !querying.log.contains(key), "a key is in the log")
        #expect(querying.log.contains("%6Bey="), "the log does not show the request")
    }

    @Test func theCacheFolderIsOursAlone() throws {
        let dir = TemporaryDirectory("trust-cache")
        // Made by the server where it is missing: this user's only.
        let server = try ServerProcess(["--cache-dir", dir.file("made/cache")], cache: false)
        server.stop()
        var info = stat()
        #expect(stat(dir.file("made/cache"), &info) == 0 && info.st_mode & 0o777 == 0o700, "mode \(String(info.st_mode & 0o777, radix: 8))")
        // One others may write in, or another user owns, is refused.
        mkdir(dir.file("open"), 0o777)
        chmod(dir.file("open"), 0o777)
        mkdir(dir.file("theirs"), 0o700)
        chown(dir.file("theirs"), 65534, 65534)
        for folder in ["open", "theirs"] {
            let result = try runMedrender(["serve", "--port", "0", "--cache-dir", dir.file(folder)], killAfter: 120)
            #expect(result.status == 73, "\(folder): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("render cache"), "\(folder): \(result.stderr)")
        }
    }
}
