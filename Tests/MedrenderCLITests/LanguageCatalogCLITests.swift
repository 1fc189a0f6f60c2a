import Foundation
import MedrenderTestSupport
import Testing

/// A library's `Languages/` as the command line meets it: a corrected word in a render's chapters
/// and a cue sheet's labels, a language of the user's own, `pt` read as pt-BR and said so, and a
/// bad catalog as one line at its line and column with 65.
@Suite struct LanguageCatalogCLITests {
    /// A short German session with no voice: its words are the sections' names and the labels.
    static func preset(_ dir: TemporaryDirectory, language: String = "de") -> String {
        dir.write("p.yaml", """
            name: p
            minutes: 1
            language: \(language)
            pattern: 4-4-4-4
            settle: 12
            closing: 12
            """)
    }

    static func library(_ dir: TemporaryDirectory, _ files: [String: String]) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.file("lib/Languages"), withIntermediateDirectories: true)
        for (name, text) in files { _ = dir.write("lib/Languages/\(name)", text) }
        return dir.file("lib")
    }

    static func run(_ arguments: [String], _ dir: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(PackagePaths.executable, arguments, in: PackagePaths.root, environment: ["XDG_CACHE_HOME": dir.file("cache")])
    }

    static func labels(_ preset: String, _ extra: [String], _ dir: TemporaryDirectory) throws -> String {
        let cues = try run(["cues", "--preset", preset, "-o", dir.file("labels.txt")] + extra, dir)
        #expect(cues.status == 0, "\(cues.stderr)")
        return (try? String(contentsOfFile: dir.file("labels.txt"), encoding: .utf8)) ?? ""
    }

    @Test func aLibrarysCatalogCorrectsAWordInTheChaptersAndLabels() throws {
        let dir = TemporaryDirectory("catalog-cli-word")
        let preset = Self.preset(dir)
        let library = try Self.library(dir, ["de.yml": "# A teacher's word.\nde:\n  settle: Einstimmen\n"])
        let render = try Self.run(["--preset", preset, "--library", library, "--rate", "8000", "-o", dir.file("de.ogg")], dir)
        #expect(render.status == 0, "\(render.stderr)")
        let probe = try runProcess(try #require(which("ffprobe")), ["-v", "error", "-show_chapters", "-of", "json", dir.file("de.ogg")])
        let chapters = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any], "\(probe.stderr)")
        let titles = try #require(chapters["chapters"] as? [[String: Any]]).map { ($0["tags"] as? [String: Any])?["title"] as? String }
        #expect(titles == ["Einstimmen", "Atmung", "Ausklang"], "\(probe.stdout)")
        let labels = try Self.labels(preset, ["--library", library], dir)
        #expect(labels.contains("\tEinstimmen\n") && labels.contains("\tEinatmen (1)\n") && !labels.contains("Ankommen"), "\(labels)")
        // Without the library, the stock word.
        #expect(try Self.labels(preset, [], dir).contains("\tAnkommen\n"))
    }

    @Test func aLibraryAddsALanguage() throws {
        let dir = TemporaryDirectory("catalog-cli-new")
        let english = try String(contentsOfFile: PackagePaths.root + "/Languages/en.yml", encoding: .utf8)
        let dutch = english.replacingOccurrences(of: "\nen:\n", with: "\nnl:\n")
            .replacingOccurrences(of: "breathe_in: Breathe in\n", with: "breathe_in: Adem in\n")
            .replacingOccurrences(of: "settle: Settle\n", with: "settle: Aankomen\n")
        let library = try Self.library(dir, ["nl.yml": dutch])
        let labels = try Self.labels(Self.preset(dir, language: "nl"), ["--library", library], dir)
        #expect(labels.contains("\tAankomen\n") && labels.contains("\tAdem in (1)\n"), "\(labels)")
        // Asked for on the command line too.
        let asked = try Self.labels(Self.preset(dir, language: "en"), ["--library", library, "--language", "NL"], dir)
        #expect(asked.contains("\tAdem in (1)\n"), "\(asked)")
    }

    @Test func ptIsReadAsBrazilsAndTheRenderSaysSo() throws {
        let dir = TemporaryDirectory("catalog-cli-pt")
        let preset = Self.preset(dir, language: "pt")
        let render = try Self.run(["--preset", preset, "--rate", "8000", "-o", dir.file("pt.ogg")], dir)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stderr.contains("medrender: warning: language 'pt' is read as pt-BR (Português (Brasil)); pt-PT is Português (Portugal)"),
                "\(render.stderr)")
        #expect(try Self.labels(preset, [], dir).contains("\tSegure (1)\n"))
        #expect(try Self.labels(preset, ["--language", "pt-pt"], dir).contains("\tSustenha (1)\n"))
    }

    @Test(arguments: [
        ("de:\n  settle: [Einstimmen, Los]\n", "/lib/Languages/de.yml:2:11: de.settle: expected text, found a list"),
        ("de:\n  settle: \"Einstimmen\n", "/lib/Languages/de.yml:"),
        ("de:\n  setle: Los\n", "/lib/Languages/de.yml:2:3: de.setle: unknown key 'setle'; did you mean 'settle'?"),
    ])
    func aBadCatalogIsOneLineWith65(text: String, message: String) throws {
        let dir = TemporaryDirectory("catalog-cli-bad")
        let library = try Self.library(dir, ["de.yml": text])
        let render = try Self.run(["--preset", Self.preset(dir), "--library", library, "--rate", "8000", "-o", dir.file("de.ogg")], dir)
        #expect(render.status == 65, "\(render.stderr)")
        let lines = render.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(dir.path + message), "\(render.stderr)")
        #expect(lines.first?.firstMatch(of: #/de\.yml:\d+:\d+: /#) != nil, "\(render.stderr)")
    }

    @Test func anUnknownLanguageListsTheLanguagesThereAre() throws {
        let dir = TemporaryDirectory("catalog-cli-unknown")
        let render = try Self.run(["cues", "--preset", Self.preset(dir), "--language", "nl", "-o", dir.file("x.txt")], dir)
        #expect(render.status == 64, "\(render.stderr)")
        #expect(render.stderr.contains("--language nl is not one medrender has words for; choose one of: de, en, es, fr, it, pt-BR, pt-PT"),
                "\(render.stderr)")
    }
}
