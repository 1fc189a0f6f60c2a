import Foundation
import MedrenderTestSupport
import Testing

/// What the server says and serves for authors: the short-session fit in the answer's headers,
/// and a teacher's library (`serve --library DIR`) in front of the stock one.
@Suite struct ServeAuthoringTests {
    /// The `Medrender-Fit` field lines of a header block, percent-decoded.
    static func fitLines(_ headers: String) -> [String] {
        headers.components(separatedBy: "\r\n").compactMap { line in
            guard line.lowercased().hasPrefix("medrender-fit:") else { return nil }
            let value = line.dropFirst("medrender-fit:".count).trimmingCharacters(in: .whitespaces)
            return value.removingPercentEncoding
        }
    }

    /// The notes the command line prints for the same session (`cues`, which renders nothing).
    static func commandLineNotes(_ arguments: [String], dir: TemporaryDirectory) throws -> [String] {
        let result = try runMedrender(["cues"] + arguments + ["-o", dir.file("cues-\(UUID().uuidString).json")])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stderr.components(separatedBy: "\n").compactMap { line in
            line.hasPrefix("medrender: note: ") ? String(line.dropFirst("medrender: note: ".count)) : nil
        }.map { $0.replacingOccurrences(of: "→", with: "->") }
    }

    @Test func aFittedSessionSaysWhatTheFitChangedInTheAnswersHeader() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // One minute of the fifteen-minute sleep preset: settle, closing and fades are fitted.
        let fitted = try Self.commandLineNotes(["--preset", "sleep", "--minutes", "1", "--rate", "8000"], dir: server.dir)
        #expect(!fitted.isEmpty, "the command line noted no fit")
        let render = try server.get("/render?preset=sleep&minutes=1&rate=8000&format=wav")
        #expect(render.status == 200, "\(render.headers)")
        #expect(Self.fitLines(render.headers) == fitted, "\(render.headers)")
        #expect(Self.fitLines(render.headers).contains { $0.contains("settle") && $0.contains("->") }, "\(render.headers)")
        // A repeat comes from the cache and still says it; so does the cue sheet.
        let again = try server.get("/render?preset=sleep&minutes=1&rate=8000&format=wav")
        #expect(again.status == 200 && again.body == render.body)
        #expect(Self.fitLines(again.headers) == fitted, "\(again.headers)")
        let cues = try server.get("/cues?preset=sleep&minutes=1&rate=8000")
        #expect(cues.status == 200 && Self.fitLines(cues.headers) == fitted, "\(cues.headers)")
        // At the preset's own length nothing is fitted, and the header is absent.
        let own = try server.get("/cues?preset=sleep&rate=8000")
        #expect(own.status == 200)
        #expect(Self.fitLines(own.headers).isEmpty, "\(own.headers)")
        #expect(try Self.commandLineNotes(["--preset", "sleep", "--rate", "8000"], dir: server.dir).isEmpty)
    }

    @Test func serveTakesATeachersLibrary() throws {
        let dir = TemporaryDirectory("serve-teacher")
        let root = dir.file("teacher")
        try FileManager.default.createDirectory(atPath: root + "/Presets", withIntermediateDirectories: true)
        try "description: Mine.\nminutes: 1\npattern: 4-0-6-0\n".write(toFile: root + "/Presets/mine.yaml", atomically: true, encoding: .utf8)
        try "description: The teacher's box.\nminutes: 5\npattern: 3-3-3-3\n"
            .write(toFile: root + "/Presets/box-breath.yaml", atomically: true, encoding: .utf8)
        let server = try ServerProcess(["--library", root])
        defer { server.stop() }
        let list = try server.get("/presets")
        #expect(list.status == 200)
        let names = try #require(try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names.contains("mine") && names.contains("coherent"), "\(names)")
        #expect(names.filter { $0 == "box-breath" }.count == 1)
        let box = try server.get("/presets/box-breath")
        #expect(box.status == 200 && String(decoding: box.body, as: UTF8.self).contains("3-3-3-3"), "\(String(decoding: box.body, as: UTF8.self))")
        let render = try server.get("/render?preset=mine&cycles=1&rate=8000&format=wav")
        #expect(render.status == 200 && render.body.starts(with: Array("RIFF".utf8)))

        let missing = try runMedrender(["serve", "--port", "0", "--library", dir.file("nowhere")])
        #expect(missing.status == 64, "\(missing.stderr)")
    }
}
