import Foundation
import MedrenderCore
import Yams

/// The languages medrender has words for, by BCP 47 tag: the stock catalogs (`Languages/TAG.yml`,
/// compiled into the program), with a library's own catalogs over them.
///
/// A catalog is Rails-style YAML, the form Weblate and other translators' tools read: one top key,
/// the tag, holding the words by key (`breathe_in: Breathe in`, `numbers: [One, …]`). A library's
/// file of a stock language corrects it key by key (a file with only `settle:` corrects one word); a
/// file of another tag adds that language, and then needs every key.
public struct LanguageCatalog: Sendable {
    /// Every language, by its tag lowercased.
    public private(set) var languages: [String: Language]

    /// A catalog of no language, for catalog files to be merged into (each then needs every key).
    public init() { languages = [:] }

    init(languages: [String: Language]) { self.languages = languages }

    /// The tag a bare language subtag picks when the catalogs hold several regions of it: `pt` is
    /// read as Brazil's Portuguese, the one most of its speakers use (Portugal's is `pt-PT`).
    public static let defaultRegions = ["pt": "pt-BR"]

    /// The stock catalogs, as compiled in (`Languages/` of the repository).
    public static let stock: LanguageCatalog = {
        var catalog = LanguageCatalog(languages: [:])
        let files: [(String, [UInt8])] = [
            ("en.yml", PackageResources.en_yml), ("de.yml", PackageResources.de_yml), ("fr.yml", PackageResources.fr_yml),
            ("es.yml", PackageResources.es_yml), ("it.yml", PackageResources.it_yml),
            ("pt-BR.yml", PackageResources.pt_BR_yml), ("pt-PT.yml", PackageResources.pt_PT_yml),
        ]
        for (name, bytes) in files {
            do {
                try catalog.merge(String(decoding: bytes, as: UTF8.self), file: "Languages/" + name)
            } catch {
                // The stock files are ours, and a test loads each of them.
                preconditionFailure("the stock catalog \(error)")
            }
        }
        return catalog
    }()

    /// The tags, as their catalogs spell them, sorted.
    public var tags: [String] { languages.values.map(\.tag).sorted() }

    /// The language `text` names, case-insensitively (`pt-br` is `pt-BR`); nil when no catalog has
    /// it. A bare `pt` picks `pt-BR` (`defaultRegions`), and a tag with a region no catalog has
    /// (`de-AT`) falls back to its language (`de`); either way the language's `note` says so.
    public func language(_ text: String) -> Language? {
        let key = text.lowercased()
        if let found = languages[key] { return found }
        let primary = String(key.split(separator: "-", maxSplits: 1).first ?? "")
        if !key.contains("-") {
            let regions = languages.values.filter { $0.primarySubtag == key }
            let pick = Self.defaultRegions[key].flatMap { languages[$0.lowercased()] } ?? (regions.count == 1 ? regions.first : nil)
            guard var pick else { return nil }
            let others = regions.filter { $0.tag != pick.tag }.sorted { $0.tag < $1.tag }.map { "\($0.tag) is \($0.name)" }
            pick.note = "language '\(text)' is read as \(pick.tag) (\(pick.name))"
                + (others.isEmpty ? "" : "; " + others.joined(separator: ", "))
            return pick
        }
        guard var pick = languages[primary] else { return nil }
        pick.note = "language '\(text)' has no catalog of its own; using \(pick.tag) (\(pick.name))"
        return pick
    }

    /// What an unknown tag's error adds: the languages there are, and how to add one.
    public func available(adding text: String) -> String {
        "medrender has words for \(tags.joined(separator: ", ")); add a language as Languages/\(text).yml in your library"
    }

    /// The keys of a catalog, in the order the stock files write them.
    public static let keys = [
        "name", "breathe_in", "breathe_in_more", "hold", "breathe_out", "settle", "breathing", "closing", "bell", "tick", "voice",
        "numbers", "settle_in", "rest", "section", "cycle", "elapsed", "remaining", "seek_hint", "preview", "hold_in", "hold_out",
        "ambience", "circle_size", "headphones_note",
    ]

    /// The words each text key sets.
    static var textKeys: [String: WritableKeyPath<Words, String>] {
        [
            "breathe_in": \.breatheIn, "breathe_in_more": \.breatheInMore, "hold": \.hold, "breathe_out": \.breatheOut,
            "settle": \.settle, "breathing": \.breathing, "closing": \.closing, "bell": \.bell, "tick": \.tick, "voice": \.voice,
            "settle_in": \.settleIn, "rest": \.rest, "section": \.section, "cycle": \.cycle, "elapsed": \.elapsed,
            "remaining": \.remaining, "seek_hint": \.seekHint, "preview": \.preview, "hold_in": \.holdIn, "hold_out": \.holdOut,
            "ambience": \.ambience, "circle_size": \.circleSize, "headphones_note": \.headphonesNote,
        ]
    }

    /// `language` as a catalog says it, one `key: value` line per key in `keys`' order (the
    /// numbers as a list): what a library build's inputs take in, so a corrected word renders again.
    public static func lines(of language: Language) -> [String] {
        let words = language.words
        return keys.map { key in
            switch key {
            case "name": "name: \(language.name)"
            case "numbers": "numbers: [\(words.numbers.joined(separator: ", "))]"
            default: "\(key): \(textKeys[key].map { words[keyPath: $0] } ?? "")"
            }
        }
    }

    /// How many numbers a spoken lead-in may count.
    public static let numberCount = 5

    /// Reads one catalog file's `text` over these languages: the words it gives replace theirs, or
    /// make a new language when its tag is new. `file` names it in errors, which point at the line
    /// and column (65).
    public mutating func merge(_ text: String, file: String) throws(PresetError) {
        let root: Yams.Node
        do {
            guard let node = try PresetNode.compose(text) else {
                throw PresetError(file: file, message: "is empty; a catalog is one key, the language's tag (such as 'de:'), holding its words")
            }
            root = node
        } catch let error as PresetError {
            throw error
        } catch let error as YamlError {
            throw PresetDecoder.yamlError(error, file: file, text: text)
        } catch {
            throw PresetError(file: file, message: "is not valid YAML (\(error))")
        }
        let top = PresetNode(node: root, file: file, path: "")
        guard case .mapping(let mapping) = root, mapping.count == 1, let entry = mapping.first else {
            throw top.error("a catalog is one key, the language's tag (such as 'de:'), holding its words; found \(top.typeName)")
        }
        let (tagNode, wordsNode) = (entry.key, entry.value)
        let tag = try PresetNode(node: tagNode, file: file, path: "").string()
        let named = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        guard Self.isTag(tag), tag.lowercased() == named.lowercased() else {
            throw PresetError(file: file, line: tagNode.mark?.line, column: tagNode.mark?.column,
                              message: "the top key '\(tag)' is not the file's language; a catalog named \(named).yml starts with '\(named):'")
        }
        let words = PresetNode(node: wordsNode, file: file, path: tag)
        let fields = try words.mapping(allowed: Self.keys)
        var language: Language
        if let known = languages[tag.lowercased()] {
            language = known
        } else {
            let missing = Self.keys.filter { fields[$0] == nil }
            guard missing.isEmpty else {
                throw words.error("a new language needs every key; missing: \(missing.joined(separator: ", ")) (copy a stock catalog, such as en.yml, and translate it)")
            }
            language = Language(tag: tag, name: tag, words: .english)
        }
        for (key, node) in fields {
            if key == "name" {
                language.name = try Self.text(node)
            } else if key == "numbers" {
                let items = try node.sequence()
                guard items.count == Self.numberCount else {
                    throw node.error("needs \(Self.numberCount) numbers, one to five, such as [One, Two, Three, Four, Five]; found \(items.count)")
                }
                language.words.numbers = try items.map { (item) throws(PresetError) in try Self.text(item) }
            } else if let path = Self.textKeys[key] {
                language.words[keyPath: path] = try Self.text(node)
            }
        }
        languages[tag.lowercased()] = language
    }

    /// A word: text on one line, not empty.
    static func text(_ node: PresetNode) throws(PresetError) -> String {
        guard case .scalar = node.node else { throw node.error("expected text, found \(node.typeName)") }
        let text = try node.string().trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.contains(where: \.isNewline) else { throw node.error("expected text on one line, found \(node.typeName)") }
        return text
    }

    /// Whether `text` is shaped like a BCP 47 tag: a language of 2 or 3 letters, then subtags of 2
    /// to 8 letters or digits, joined by hyphens (`en`, `pt-BR`, `sr-Latn`).
    public static func isTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}

extension PresetLibrary {
    /// The languages of this library: the stock catalogs, with each library folder's
    /// `Languages/*.yml` over them, the stock folder's first and the first `--library` last (its
    /// word wins). A catalog that does not read is an error at its line and column (65).
    public func languages() throws(PresetError) -> LanguageCatalog {
        var catalog = LanguageCatalog.stock
        for base in roots.reversed() {
            let folder = base + "/Languages"
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }.sorted()
            for name in names {
                let file = folder + "/" + name
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw PresetError(file: file, message: "cannot be read: check its permissions", category: .missingInput)
                }
                guard data.count <= PresetDecoder.maximumPresetBytes else {
                    throw PresetError(file: file, message: "is \(data.count) bytes; a catalog is a YAML file of at most \(PresetDecoder.maximumPresetBytes / 1024) KiB")
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    throw PresetError(file: file, message: "is not UTF-8 text; a catalog is a YAML file")
                }
                try catalog.merge(text, file: file)
            }
        }
        return catalog
    }
}
