import Foundation
import MedrenderPreview
import Testing

/// The studio's page names its script and style by the paths it is served with, and the program
/// holds exactly the package's files.
@Suite struct StudioPageTests {
    /// `Sources/MedrenderPreview/Resources/`, from this file's place in the package.
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MedrenderPreview/Resources")

    @Test(arguments: [("studio.js", "/studio/studio.js"), ("studio.css", "/studio/studio.css")])
    func theProgramHoldsThePackagesFile(name: String, path: String) throws {
        let file = try #require(StudioPage.files.first { $0.path == path }, "no file served at \(path)")
        let bytes = try Data(contentsOf: Self.resources.appendingPathComponent(name))
        #expect(Data(file.bytes) == bytes, "\(name): \(file.bytes.count) bytes in the program, \(bytes.count) in the file")
        #expect(!bytes.isEmpty && String(validating: bytes, as: UTF8.self) != nil, "\(name) is UTF-8 text")
    }

    @Test(arguments: [false, true])
    func thePageLinksItsScriptAndStyle(canSave: Bool) throws {
        let html = StudioPage(canSave: canSave).html
        #expect(html.contains("<link rel=\"stylesheet\" href=\"/studio/studio.css\">"))
        #expect(html.contains("<script src=\"/studio/studio.js\" data-debounce-ms=\"\(StudioPage.debounceMilliseconds)\"></script>"))
        // The script runs after the elements it reads.
        let script = try #require(html.range(of: "<script src=")).lowerBound
        let yaml = try #require(html.range(of: "<textarea id=\"yaml\"")).lowerBound
        #expect(yaml < script)
        #expect(StudioPage.script.contentType.hasPrefix("text/javascript") && StudioPage.style.contentType.hasPrefix("text/css"))
    }
}
