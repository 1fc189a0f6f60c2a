import Foundation
import MedrenderTestSupport
import Testing

/// The server speaks Piper voices by name, from its own voice folders; a Piper model named by
/// path in a posted preset or a query stays inside its library, and a voice list hides no program.
@Suite struct PiperTrustTests {
    @Test func aPostedPiperModelOutsideTheLibraryIsRefusedAndAListHidesNoProgram() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let outside = TemporaryDirectory("piper-outside")
        _ = outside.write("teacher.onnx", "not a model\n")
        _ = outside.write("teacher.onnx.json", #"{"language": {"code": "en_US"}}"#)
        for spelling in [outside.file("teacher.onnx"), outside.file("absent.onnx"), "../../../../../..\(outside.file("teacher.onnx"))"] {
            let answer = try StudioTests.post(server, "/studio/plan", ServeTrustTests.guided(voice: "piper:\(spelling)"))
            #expect(answer.status == 422, "\(spelling): \(answer.status) \(answer.body)")
            #expect(answer.body.contains("is outside the library"), "\(answer.body)")
        }
        let marker = server.dir.file("ran")
        let program = try ServeTrustTests.markingProgram(server.dir, marker: marker)
        let listed = try StudioTests.post(server, "/studio/plan", ServeTrustTests.guided(voice: "[festival, \"command:\(program)\"]"))
        #expect((400..<500).contains(listed.status), "\(listed.status) \(listed.body)")
        #expect(listed.body.contains("'command' engine"), "\(listed.body)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the program ran")
        // A query names a voice by name only.
        let query = try server.get("/cues?preset=body-scan&voice=piper:\(outside.file("teacher.onnx"))")
        #expect(query.status == 400, "\(query.status)")
        #expect(String(decoding: query.body, as: UTF8.self).contains("speaks Piper voices by name"))
    }
}
