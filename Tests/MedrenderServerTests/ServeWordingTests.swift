import Foundation
import MedrenderTestSupport
import Testing

/// An HTTP client reads the service's words: a bad value is named as the query names it
/// (`minutes=0`), never as the command line does (`--minutes 0`), on /render, /video and the studio.
@Suite struct ServeWordingTests {
    static func text(_ answer: (status: Int, headers: String, body: Data)) -> String {
        String(decoding: answer.body, as: UTF8.self)
    }

    /// No option of the command line (`--` and a letter) anywhere in `text`.
    static func namesNoOption(_ text: String) -> Bool {
        text.range(of: #"--[a-z]"#, options: .regularExpression) == nil
    }

    @Test func badValuesAreNamedAsTheQueryNamesThem() throws {
        let server = try ServerProcess(["--max-minutes", "30"])
        defer { server.stop() }
        let asked: [(query: String, named: String)] = [
            ("/render?preset=box-breath&minutes=0", "minutes=0"),
            ("/render?preset=box-breath&minutes=5&cycles=3", "minutes and cycles are both given"),
            ("/render?preset=box-breath&rate=5", "rate=5"),
            ("/render?preset=box-breath&true-peak=3", "true-peak=3"),
            ("/render?preset=box-breath&format=wav&bits=9", "bits=9"),
            ("/render?preset=box-breath&minutes=40", "this server renders up to 30 minutes"),
            ("/render?preset=box-breath&seed=-1", "seed=-1"),
            ("/cues?preset=box-breath&minutes=1&pattern=4-x", "pattern=4-x"),
            ("/video?preset=box-breath&minutes=1&rate=8000&fps=2x", "fps=2x"),
            ("/video?preset=box-breath&minutes=1&rate=8000&size=10x10", "size=10x10"),
        ]
        for (query, named) in asked {
            let answer = try server.get(query)
            let text = Self.text(answer)
            #expect(answer.status == 400, "\(query): \(answer.status) \(text)")
            #expect(text.contains(named), "\(query): \(text)")
            #expect(Self.namesNoOption(text), "\(query) names a command-line option: \(text)")
        }
    }

    @Test func theStudioNamesItsFieldsAndParametersAsTheRequestDoes() throws {
        let server = try ServerProcess(["--max-minutes", "30"])
        defer { server.stop() }
        // A plan longer than the server renders: said without the option that sets the limit.
        let long = StudioTests.boxBreath.replacingOccurrences(of: "minutes: 15", with: "minutes: 45")
        let plan = try StudioTests.post(server, "/studio/plan", long)
        #expect(plan.status == 422, "\(plan.status) \(plan.body)")
        #expect(plan.body.contains("this server plans up to 30 minutes"), "\(plan.body)")
        #expect(Self.namesNoOption(plan.body), "\(plan.body)")

        // A take heard from a point that is no number: `from=`, as the request named it.
        let short = StudioTests.boxBreath.replacingOccurrences(of: "minutes: 15", with: "minutes: 1")
            .replacingOccurrences(of: "settle: 20", with: "settle: 12").replacingOccurrences(of: "closing: 30", with: "closing: 12")
        let take = try StudioTests.object(try StudioTests.post(server, "/studio/listen", short).body)
        let url = try #require(take["url"] as? String)
        for (query, named) in [("?from=soon", "from=soon"), ("?from=0&format=mp3", "format=mp3")] {
            let answer = try server.get(url + query)
            let text = Self.text(answer)
            #expect(answer.status == 400, "\(query): \(answer.status) \(text)")
            #expect(text.contains(named), "\(query): \(text)")
            #expect(Self.namesNoOption(text), "\(query): \(text)")
        }
        // Saving on a server that keeps no presets: no option to start it with.
        let save = try StudioTests.post(server, "/studio/save?name=mine", short)
        #expect(save.status == 403 && Self.namesNoOption(save.body), "\(save.status) \(save.body)")
    }
}
