import Foundation
import Medrender
import MedrenderCore
import Yams

/// The podcast feed's settings: the `feed:` mapping of a library's settings file (`library.yaml`).
///
/// ```yaml
/// feed:
///   url: https://example.org/sessions/      # where the output folder is published
///   title: Breathing sessions
///   author: Example Studio
///   image: cover.jpg                        # absolute, or relative to url
///   language: en
///   category: Health & Fitness
///   subcategory: Mental Health              # optional
///   explicit: false
///   owner: {name: Example Studio, email: podcast@example.org}   # optional
///   description: Guided breathing, one session a week.          # optional, default the title
/// ```
public struct LibraryFeedSettings: Sendable, Hashable {
    /// The address the output folder is published at: each file is at `url/NAME`, the feed at `url/feed.xml`.
    public var url: String?
    public var title: String?
    public var author: String?
    /// The cover art: an absolute http(s) URL, or a path relative to `url`.
    public var image: String?
    /// The feed's language, such as `en` or `de-DE`.
    public var language: String?
    /// An Apple Podcasts category, such as `Health & Fitness`.
    public var category: String?
    public var subcategory: String?
    public var explicit: Bool?
    public var ownerName: String?
    public var ownerEmail: String?
    public var description: String?
    /// `podcast:locked`: whether other platforms may not import the feed (`locked: true`), default false.
    public var locked: Bool?

    public init(url: String? = nil, title: String? = nil, author: String? = nil, image: String? = nil, language: String? = nil,
                category: String? = nil, subcategory: String? = nil, explicit: Bool? = nil, ownerName: String? = nil,
                ownerEmail: String? = nil, description: String? = nil)
    {
        self.url = url
        self.title = title
        self.author = author
        self.image = image
        self.language = language
        self.category = category
        self.subcategory = subcategory
        self.explicit = explicit
        self.ownerName = ownerName
        self.ownerEmail = ownerEmail
        self.description = description
    }

    /// The settings file's name in a library's folder.
    public static let fileName = "library.yaml"

    /// The keys `feed:` may hold.
    static let keys: Set<String> = ["url", "title", "author", "image", "language", "category", "subcategory", "explicit", "owner", "description", "locked"]

    /// The settings a feed cannot do without (podcast directories refuse a feed without them), in the order they are reported.
    public static let requiredKeys = ["title", "author", "image", "language", "category", "explicit"]

    /// The required settings that are missing.
    public var missing: [String] {
        let present: [String: Bool] = [
            "title": title != nil, "author": author != nil, "image": image != nil, "language": language != nil,
            "category": category != nil, "explicit": explicit != nil,
        ]
        return Self.requiredKeys.filter { present[$0] != true }
    }

    /// The `feed:` settings of the YAML file at `path`; empty settings when the file has no `feed:`.
    public static func read(path: String) throws -> LibraryFeedSettings {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RenderError("\(path): cannot be read; give a readable settings file", category: .missingInput)
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: String(decoding: data, as: UTF8.self))
        } catch {
            throw RenderError("\(path): is not YAML (\(error)); fix the file", category: .badData)
        }
        guard let node else { return LibraryFeedSettings() }
        guard let root = node.mapping.map(entries) else {
            throw RenderError("\(path): is not a mapping of settings; write 'feed:' with its keys", category: .badData)
        }
        guard let feedNode = root["feed"] else { return LibraryFeedSettings() }
        guard let feed = feedNode.mapping.map(entries) else {
            throw RenderError("\(path): feed: is not a mapping; give its keys (\(requiredKeys.joined(separator: ", "))) under it", category: .badData)
        }
        func text(_ key: String) throws -> String? {
            guard let value = feed[key] else { return nil }
            guard let scalar = value.scalar, !scalar.string.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw RenderError("\(path): feed.\(key) is not a text; give it one line of text", category: .badData)
            }
            return scalar.string
        }
        for name in feed.keys.sorted() {
            guard keys.contains(name) else {
                throw RenderError("\(path): feed.\(name) is not a feed setting; use \(keys.sorted().joined(separator: ", "))", category: .badData)
            }
        }
        var settings = LibraryFeedSettings()
        settings.url = try text("url")
        settings.title = try text("title")
        settings.author = try text("author")
        settings.image = try text("image")
        settings.language = try text("language")
        settings.category = try text("category")
        settings.subcategory = try text("subcategory")
        settings.description = try text("description")
        if let value = feed["explicit"] {
            guard let flag = value.bool else { throw RenderError("\(path): feed.explicit is not true or false; give one of them", category: .badData) }
            settings.explicit = flag
        }
        if let value = feed["locked"] {
            guard let flag = value.bool else { throw RenderError("\(path): feed.locked is not true or false; give one of them", category: .badData) }
            settings.locked = flag
        }
        if let owner = feed["owner"] {
            guard let mapping = owner.mapping.map(entries) else {
                throw RenderError("\(path): feed.owner is not a mapping; give it name: and email:", category: .badData)
            }
            settings.ownerName = mapping["name"]?.string
            settings.ownerEmail = mapping["email"]?.string
        }
        return settings
    }

    /// A mapping's entries by their keys' text.
    static func entries(_ mapping: Node.Mapping) -> [String: Node] {
        var result: [String: Node] = [:]
        for (key, value) in mapping { result[key.string ?? "\(key)"] = value }
        return result
    }

    /// The base address of a feed URL: an absolute http(s) URL with a host, without a trailing `/`
    /// (and without `feed.xml` when the feed's own address is given); nil when it is not one.
    public static func baseURL(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil, !text.contains(" ")
        else { return nil }
        var base = text
        if base.hasSuffix("/" + LibraryFeed.fileName) { base.removeLast(LibraryFeed.fileName.count) }
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// Why `text` is not a feed URL, in one line.
    public static func urlProblem(_ text: String, option: String) -> String {
        "\(option) \(text) is not an absolute http(s) URL; give the address the output folder is published at, such as https://example.org/sessions/"
    }
}
