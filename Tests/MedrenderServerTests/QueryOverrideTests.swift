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
}
