import Foundation
import MedrenderTestSupport
import Testing

/// The studio's script and style are files of the package: the page links them, the server serves
/// exactly their bytes, and a JavaScript tool reads the script.
@Suite struct StudioFilesTests {
    /// The package's file `name` under the studio's resources.
    static func resource(_ name: String) throws -> Data {
        let path = "\(PackagePaths.root)/Sources/MedrenderPreview/Resources/\(name)"
        return try #require(FileManager.default.contents(atPath: path), "no file \(path)")
    }

    /// The value of `attribute` in the first tag of `html` that starts with `opening` and holds `holding`.
    static func attribute(_ attribute: String, of opening: String, holding: String, in html: String) -> String? {
        var rest = html[...]
        while let start = rest.range(of: opening) {
            guard let end = rest[start.upperBound...].firstIndex(of: ">") else { return nil }
            let tag = rest[start.lowerBound..<end]
            rest = rest[end...]
            guard tag.contains(holding), let name = tag.range(of: " \(attribute)=\"") else { continue }
            return tag[name.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
        return nil
    }

    @Test func thePageLinksItsFilesAndTheServerServesTheirBytes() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let page = try server.get("/studio")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200)
        let script = try #require(Self.attribute("src", of: "<script", holding: "src=", in: html), "no script tag with src: \(html.suffix(400))")
        let style = try #require(Self.attribute("href", of: "<link", holding: "rel=\"stylesheet\"", in: html), "no stylesheet link")
        #expect(script == "/studio/studio.js" && style == "/studio/studio.css")
        for (path, file, type) in [(script, "studio.js", "text/javascript"), (style, "studio.css", "text/css")] {
            let expected = try Self.resource(file)
            let served = try server.get(path)
            #expect(served.status == 200, "\(path): \(served.status)")
            #expect(served.body == expected, "\(path): \(served.body.count) bytes served, \(expected.count) in \(file)")
            let headers = served.headers.lowercased()
            #expect(headers.contains("content-type: \(type); charset=utf-8"), "\(path): \(served.headers)")
            #expect(headers.contains("content-length: \(expected.count)\r\n"), "\(path): \(served.headers)")
            #expect(headers.contains("cache-control: no-cache"), "\(path): \(served.headers)")
            // HEAD: the same headers, no body.
            let head = try server.get(path, curl: ["-I"])
            #expect(head.status == 200 && head.headers.lowercased().contains("content-length: \(expected.count)\r\n"), "\(head.headers)")
            // POST is not served.
            #expect(try server.get(path, curl: ["-X", "POST", "--data", "x"]).status == 405)
        }
        // Only linked: the page holds neither file's text.
        let scriptText = String(decoding: try Self.resource("studio.js"), as: UTF8.self)
        let styleText = String(decoding: try Self.resource("studio.css"), as: UTF8.self)
        #expect(!html.contains(scriptText.split(separator: "\n")[3]), "the script is inlined")
        #expect(!html.contains(styleText.split(separator: "\n")[3]), "the style is inlined")
    }

    @Test(.enabled(if: which("node") != nil, "node is not installed: `make test-deps` installs it (Debian package nodejs)"))
    func theScriptIsJavaScriptToNode() throws {
        let node = try #require(which("node"))
        let path = "\(PackagePaths.root)/Sources/MedrenderPreview/Resources/studio.js"
        let check = try runProcess(node, ["--check", path])
        #expect(check.status == 0, "node --check studio.js: \(check.stderr)")
        // The check fails on a script that is not JavaScript (so its passing means something).
        let dir = TemporaryDirectory("studio-node")
        let broken = dir.write("broken.js", String(decoding: try Self.resource("studio.js"), as: UTF8.self) + "\n})(;\n")
        #expect(try runProcess(node, ["--check", broken]).status != 0)
    }
}
