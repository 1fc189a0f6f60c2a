import Foundation
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The languages' catalogs (`Languages/TAG.yml`): each loads with every key, the tags are read as
/// BCP 47 says, a library's file corrects a word or adds a language, and a bad file is a one-line
/// error at its line and column.
@Suite struct LanguageCatalogTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Languages").standardized.path
    static let stockTags = ["de", "en", "es", "fr", "it", "pt-BR", "pt-PT"]

    static func language(_ tag: String) throws -> Language {
        try #require(LanguageCatalog.stock.language(tag), "no \(tag)")
    }

    /// Each file alone, into a catalog of no language: a new language needs every key.
    @Test(arguments: stockTags)
    func everyCatalogLoadsWithEveryKey(tag: String) throws {
        let file = Self.folder + "/\(tag).yml"
        var catalog = LanguageCatalog()
        try catalog.merge(try String(contentsOfFile: file, encoding: .utf8), file: file)
        let language = try #require(catalog.language(tag))
        #expect(language.tag == tag && language.note == nil)
        #expect(language.words.numbers.count == 5)
        // As compiled in.
        #expect(language == (try Self.language(tag)))
        // Its header says who checked it and how to correct it.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("# ") && text.contains("Checked:") && text.contains("Corrections welcome"))
    }

    @Test func theStockCatalogsAreTheSevenAndEnglishIsCoresBuiltIn() throws {
        #expect(LanguageCatalog.stock.tags == Self.stockTags)
        #expect(try Self.language("en") == Language.english)
    }

    @Test func brazilsAndPortugalsPortugueseDifferAndEachKeepsToItsOwnForms() throws {
        let brazil = try Self.language("pt-BR"), portugal = try Self.language("pt-PT")
        #expect(brazil.words != portugal.words)
        let br = LanguageCatalog.lines(of: brazil).joined(separator: "\n")
        let pt = LanguageCatalog.lines(of: portugal).joined(separator: "\n")
        #expect(brazil.words.hold == "Segure" && [brazil.words.holdIn, brazil.words.holdOut].allSatisfy { $0.hasPrefix("Segure (") })
        #expect(portugal.words.hold == "Sustenha" && [portugal.words.holdIn, portugal.words.holdOut].allSatisfy { $0.hasPrefix("Sustenha (") })
        #expect(br.contains("fones de ouvido") && brazil.words.preview == "prévia")
        #expect(pt.contains("auscultadores") && portugal.words.preview == "pré-visualização")
        for word in ["Sustenha", "auscultadores", "pré-visualização", "Linha temporal"] { #expect(!br.contains(word), "pt-BR says \(word)") }
        for word in ["Segure", "fones", "prévia", "Linha do tempo"] { #expect(!pt.contains(word), "pt-PT says \(word)") }
        for language in [brazil, portugal] {
            #expect(language.words.settle == "Preparação")
            #expect(language.words.holdIn.hasSuffix("(pulmões cheios)") && language.words.holdOut.hasSuffix("(pulmões vazios)"))
        }
    }

    /// The fixes of a fluent reader's pass.
    @Test func theReadersFixesAreIn() throws {
        let es = try Self.language("es").words, it = try Self.language("it").words
        #expect(es.settle == "Preparación" && es.holdIn == "Mantén (pulmones llenos)" && es.holdOut == "Mantén (pulmones vacíos)")
        #expect(it.holdIn == "Trattieni (a polmoni pieni)" && it.holdOut == "Trattieni (a polmoni vuoti)")
        #expect(try Self.language("de").words.breathing == "Atmung")
        #expect(try Self.language("fr").words.seekHint == "Frise : cliquez pour vous y déplacer")
    }

    @Test(arguments: [
        ("pt-BR", "pt-BR", false), ("pt-br", "pt-BR", false), ("PT-pt", "pt-PT", false), ("EN", "en", false),
        ("pt", "pt-BR", true), ("de-AT", "de", true), ("en-US", "en", true),
    ])
    func tagsAreReadAsBCP47Says(text: String, tag: String, noted: Bool) throws {
        let language = try #require(LanguageCatalog.stock.language(text))
        #expect(language.tag == tag)
        #expect((language.note != nil) == noted, "\(language.note ?? "")")
        if text == "pt" { #expect(language.note == "language 'pt' is read as pt-BR (Português (Brasil)); pt-PT is Português (Portugal)") }
    }

    @Test func anUnknownTagIsNoLanguage() {
        for text in ["nl", "xx-YY", "", "p"] { #expect(LanguageCatalog.stock.language(text) == nil, "\(text)") }
    }

    @Test func aFileOfAStockLanguageCorrectsOneWord() throws {
        var catalog = LanguageCatalog.stock
        try catalog.merge("# mine\npt-PT:\n  settle: Início\n", file: "lib/Languages/pt-PT.yml")
        var expected = try Self.language("pt-PT")
        expected.words.settle = "Início"
        #expect(catalog.language("pt-PT") == expected)
        #expect(catalog.language("pt-BR") == (try Self.language("pt-BR")))
    }

    /// English's catalog with every word changed: a language of the user's own.
    static func dutch(leaving missing: String? = nil) throws -> String {
        let english = try String(contentsOfFile: folder + "/en.yml", encoding: .utf8)
        var lines = english.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.hasPrefix("#") }
        lines = lines.map { $0 == "en:" ? "nl:" : $0 }
        if let missing { lines.removeAll { $0.hasPrefix("  \(missing):") } }
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: "name: English", with: "name: Nederlands")
            .replacingOccurrences(of: "breathe_in: Breathe in\n", with: "breathe_in: Adem in\n")
            .replacingOccurrences(of: "settle: Settle\n", with: "settle: Aankomen\n")
    }

    @Test func aFileOfANewLanguageAddsIt() throws {
        var catalog = LanguageCatalog.stock
        try catalog.merge(try Self.dutch(), file: "lib/Languages/nl.yml")
        let dutch = try #require(catalog.language("NL"))
        #expect(dutch.tag == "nl" && dutch.name == "Nederlands")
        #expect(dutch.words.breatheIn == "Adem in" && dutch.words.settle == "Aankomen" && dutch.words.hold == "Hold")
        #expect(catalog.tags.contains("nl"))
    }

    @Test(arguments: [
        // A new language missing a key: named, with the file, line and column of its words.
        ("nl.yml", "MISSING", "nl.yml:2:3: nl: a new language needs every key; missing: settle"),
        ("de.yml", "de:\n  settle: [Ankommen\n", "de.yml:"),
        ("de.yml", "de:\n  settle: [Ankommen, Los]\n", "de.yml:2:11: de.settle: expected text, found a list"),
        ("de.yml", "de:\n  settle: { a: b }\n", "de.yml:2:11: de.settle: expected text, found a mapping"),
        ("de.yml", "de:\n  numbers: [Eins, Zwei]\n", "de.yml:2:12: de.numbers: needs 5 numbers"),
        ("de.yml", "de:\n  setle: Los\n", "de.yml:2:3: de.setle: unknown key 'setle'; did you mean 'settle'?"),
        ("de.yml", "fr:\n  settle: Los\n", "de.yml:1:1: the top key 'fr' is not the file's language"),
        ("de.yml", "- de\n", "de.yml:1:1: a catalog is one key"),
        ("de.yml", "", "de.yml: is empty"),
    ])
    func aBadCatalogIsOneLineAtItsLineAndColumn(name: String, text: String, message: String) throws {
        var catalog = LanguageCatalog.stock
        let body = text == "MISSING" ? try Self.dutch(leaving: "settle") : text
        #expect {
            try catalog.merge(body, file: name)
        } throws: { error in
            guard let error = error as? PresetError else { return false }
            // One line, at a line and column (but for an empty file), 65.
            let located = text.isEmpty || error.description.firstMatch(of: #/^[a-z.]+:\d+:\d+: /#) != nil
            let yaml = message != "de.yml:" || error.description.contains("is not valid YAML")
            return error.description.hasPrefix(message) && located && yaml && error.category == .badData && !error.description.contains("\n")
        }
    }

    @Test func aPresetsLanguageIsOneOfTheCatalogs() throws {
        let pt = try PresetDecoder.decode("pattern: 4-4-4-4\nlanguage: pt\n", file: "p.yaml", defaultName: "p")
        #expect(pt.language.tag == "pt-BR" && pt.language.note?.contains("read as pt-BR") == true)
        let portugal = try PresetDecoder.decode("pattern: 4-4-4-4\nlanguage: pt-pt\n", file: "p.yaml", defaultName: "p")
        #expect(portugal.language.tag == "pt-PT" && portugal.language.note == nil)
        let plain = try PresetDecoder.decode("pattern: 4-4-4-4\n", file: "p.yaml", defaultName: "p")
        #expect(plain.language == Language.english)
        #expect {
            try PresetDecoder.decode("pattern: 4-4-4-4\nlanguage: nl\n", file: "p.yaml", defaultName: "p")
        } throws: { error in
            (error as? PresetError)?.description
                == "p.yaml:2:11: language: unknown language 'nl'; medrender has words for de, en, es, fr, it, pt-BR, pt-PT; "
                + "add a language as Languages/nl.yml in your library"
        }
    }

    /// A library's `Languages/` over the stock catalogs: the first library's word wins.
    @Test func aLibrarysCatalogsOverrideTheStockOnes() throws {
        let dir = TemporaryDirectory("catalog-library")
        for folder in ["first", "second"] {
            try FileManager.default.createDirectory(atPath: dir.file("\(folder)/Languages"), withIntermediateDirectories: true)
        }
        _ = dir.write("first/Languages/de.yml", "de:\n  settle: Einstimmen\n")
        _ = dir.write("second/Languages/de.yml", "de:\n  settle: Beginnen\n  rest: Stille\n")
        _ = dir.write("second/Languages/nl.yml", try Self.dutch())
        let library = PresetLibrary(root: dir.file("stock"), front: [dir.file("first"), dir.file("second")])
        let catalog = try library.languages()
        let german = try #require(catalog.language("de"))
        #expect(german.words.settle == "Einstimmen" && german.words.rest == "Stille" && german.words.hold == "Halten")
        #expect(catalog.language("nl")?.words.breatheIn == "Adem in")
        let session = try PresetDecoder.decode("pattern: 4-4-4-4\nlanguage: de\n", file: "p.yaml", defaultName: "p", languages: catalog)
        #expect(session.language.words.settle == "Einstimmen")
    }
}
