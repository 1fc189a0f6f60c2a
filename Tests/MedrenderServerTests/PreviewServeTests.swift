import Foundation
import MedrenderTestSupport
import Testing

/// `GET /preview`: the command line's preview page, its audio the `/render` of the same query.
@Suite(.serialized) struct PreviewServeTests {
    @Test func thePreviewPagePlaysTheRenderOfTheSameQuery() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let query = "preset=box-breath&minutes=2&rate=16000"
        let page = try server.get("/preview?\(query)")
        #expect(page.status == 200)
        #expect(page.headers.lowercased().contains("content-type: text/html"))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<audio id=\"audio\" controls preload=\"auto\" src=\"/render?\(query.replacingOccurrences(of: "&", with: "&amp;"))\">"))
        #expect(html.contains("window.medrenderPreview"))
        #expect(html.contains("class=\"session-plot\""))
        #expect(html.contains("data-duration=\"120\""))
        // The page's audio is there, as the page names it.
        let audio = try server.get("/render?\(query)")
        #expect(audio.status == 200)
        #expect(audio.headers.lowercased().contains("content-type: audio/ogg"))
        #expect(audio.body.count > 10_000)

        // In a browser, served: the page draws itself at a time, with no error.
        if let browser = which("chromium") ?? which("chromium-browser") {
            let dump = try runProcess(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                                "--user-data-dir=\(server.dir.file("chromium-profile"))", "--enable-logging=stderr", "--v=0",
                                                "--dump-dom", "http://127.0.0.1:\(server.port)/preview?\(query)#t=1"], killAfter: 180)
            #expect(dump.status == 0)
            #expect(dump.stdout.contains("data-label=\"Settle in\""), "\(dump.stdout.prefix(300))")
            #expect(!dump.stdout.contains("data-errors="))
            #expect(!dump.stderr.contains(":CONSOLE"), "\(dump.stderr)")
        }
    }

    @Test func aBadQueryIsOneLineWithItsStatus() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let missing = try server.get("/preview?preset=no-such-preset")
        #expect(missing.status == 404)
        let text = String(decoding: missing.body, as: UTF8.self)
        #expect(text.contains("no-such-preset") && text.split(separator: "\n").count == 1, "\(text)")
        let usage = try server.get("/preview?preset=box-breath&minutes=abc")
        #expect(usage.status == 400)
    }
}
