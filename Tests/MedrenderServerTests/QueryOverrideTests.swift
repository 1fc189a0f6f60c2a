import Foundation
import MedrenderTestSupport
import Testing

/// What people vary most, asked over HTTP as on the command line: settle, closing, ambience, the
/// recorded voice, bells, seed, the words' language and the script's voice.
@Suite struct QueryOverrideTests {
    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func overridesShapeTheSessionAsOnTheCommandLine() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let plain = try server.get("/cues?preset=box-breath&minutes=3&rate=8000")
        let settled = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&settle=12&closing=40&no-voice&bells=none&seed=7")
        #expect(plain.status == 200 && settled.status == 200, "\(String(decoding: settled.body, as: UTF8.self))")
        let firstCue = { (data: Data) throws -> Int in
            let cues = try #require(try Self.json(data)["cues"] as? [[String: Any]])
            return try #require((cues.first?["frame"] as? NSNumber)?.intValue)
        }
        #expect(try firstCue(plain.body) == 20 * 8000, "box-breath settles 20 s")
        #expect(try firstCue(settled.body) == 12 * 8000, "settle=12 starts the breathing at 12 s")
        let events = try #require(try Self.json(settled.body)["events"] as? [[String: Any]])
        #expect(!events.contains { ($0["type"] as? String) == "voice" || ($0["type"] as? String) == "bell" }, "\(events)")

        // The words' language: the captions' phase labels.
        let german = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&sheet=vtt&language=de")
        #expect(german.status == 200)
        #expect(String(decoding: german.body, as: UTF8.self).contains("Einatmen"))

        // The layers' levels and the duck, as on the command line; out of range, a 400 that
        // names the query parameter.
        let levelled = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&ambience-level=-30&voice-level=-22&duck=-12")
        #expect(levelled.status == 200, "\(String(decoding: levelled.body, as: UTF8.self))")
        let deep = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&duck=3")
        #expect(deep.status == 400)
        #expect(String(decoding: deep.body, as: UTF8.self).contains("duck=3.0 is out of range"), "\(String(decoding: deep.body, as: UTF8.self))")
    }

    @Test func aRequestNeverNamesAProgramToRun() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let answer = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&voice=command:/bin/true")
        #expect(answer.status == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("runs no program a request names"))
        let language = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&language=xx")
        #expect(language.status == 400, "\(String(decoding: language.body, as: UTF8.self))")
        let noVoice = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&no-voice=maybe")
        #expect(noVoice.status == 400)
    }

    /// A tag in any case (`pt-br`), and a library's catalog that does not read: a 4xx answer in
    /// the words of the command line's error, at the file's line and column.
    @Test func languagesComeFromTheLibrarysCatalogs() throws {
        let dir = TemporaryDirectory("serve-catalog")
        try FileManager.default.createDirectory(atPath: dir.file("lib/Languages"), withIntermediateDirectories: true)
        let server = try ServerProcess(["--library", dir.file("lib")])
        defer { server.stop() }
        let brazil = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&sheet=vtt&language=pt-br")
        #expect(brazil.status == 200 && String(decoding: brazil.body, as: UTF8.self).contains("Segure"))
        _ = dir.write("lib/Languages/de.yml", "de:\n  settle: [Einstimmen, Los]\n")
        let bad = try server.get("/cues?preset=box-breath&minutes=3&rate=8000&language=de")
        let body = String(decoding: bad.body, as: UTF8.self)
        #expect((400..<500).contains(bad.status), "\(bad.status) \(body)")
        // The library's folder is not told to a client: the path from it, as for a preset.
        #expect(body == "Languages/de.yml:2:11: de.settle: expected text, found a list\n", "\(body)")
    }
}
