import Crypto
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO

/// What a feed says of one preset: its episode title and description.
public struct LibraryFeedPreset: Sendable, Hashable {
    public var title: String
    public var description: String

    public init(title: String, description: String) {
        self.title = title
        self.description = description
    }
}

/// What writing a feed did.
public struct LibraryFeedSummary: Sendable, Hashable {
    /// The feed's path.
    public var path: String
    public var items: Int
    /// Whether `feed.xml` was written (false when the one there already had the same bytes).
    public var wrote: Bool
    /// The chapters files written (those already up to date are left alone).
    public var chaptersWritten: [String]
}

/// A built folder's podcast feed, `feed.xml`: RSS 2.0 with the iTunes tags and the Podcasting 2.0
/// namespace, one item per session of the manifest (a preset at a length and rate), each with its
/// enclosure (the file of the preferred format: the first the build names; the session's files in
/// other formats are its `podcast:alternateEnclosure`s), duration, a GUID from that file's SHA-256,
/// a publication date, `podcast:chapters` (a JSON chapters file written beside
/// the output, from its cue sheet's sections) and `podcast:transcript` (its WebVTT cue sheet).
///
/// It is a function of the folder: the manifest, the cue sheets and the feed already there (whose
/// publication dates are kept for GUIDs it lists), so a repeated build writes the same bytes and a
/// merge writes one feed for all shards.
public enum LibraryFeed {
    public static let fileName = "feed.xml"
    static let itunesNamespace = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let podcastNamespace = "https://podcastindex.org/namespace/1.0"

    /// The MIME type of an output format, by extension.
    public static func mimeType(format: String) -> String {
        switch format.lowercased() {
        case "mp3": "audio/mpeg"
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        // RFC 7845: an Ogg Opus file is audio/ogg.
        default: "audio/ogg"
        }
    }

    /// The GUID of an output with this SHA-256: the same bytes, the same GUID.
    public static func guid(sha256: String) -> String { "urn:sha256:" + sha256 }

    /// The chapters file of a JSON cue sheet: `box-breath-15min.chapters.json` for `box-breath-15min.json`.
    public static func chaptersName(cueSheet: String) -> String {
        String(cueSheet.dropLast(".json".count)) + ".chapters.json"
    }

    /// The Podcasting 2.0 JSON chapters (version 1.2.0) of a JSON cue sheet: one chapter per section.
    public static func chapters(fromCueSheet data: Data) -> [UInt8]? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let sections = object["sections"] as? [[String: Any]] else { return nil }
        var text = "{\"version\": \"1.2.0\", \"chapters\": ["
        var items: [String] = []
        for section in sections {
            guard let name = section["name"] as? String, let seconds = (section["seconds"] as? NSNumber)?.doubleValue else { continue }
            items.append("\n  {\"startTime\": \(jsonNumber(seconds)), \"title\": \"\(JSONString.escaped(name))\"}")
        }
        text += items.joined(separator: ",") + "\n]}\n"
        return Array(text.utf8)
    }

    /// Writes `feed.xml` (and each output's chapters file) in `folder` for the outputs of `manifest`.
    ///
    /// - Parameters:
    ///   - baseURL: where the folder is published, without a trailing `/` (see `LibraryFeedSettings.baseURL`).
    ///   - presets: the title and description of a preset, by its name; nil for one that cannot be read.
    ///   - now: the publication date of an output the feed there does not list yet.
    @discardableResult
    /// `formats` orders the formats by preference (the build's `--format` list); formats it does
    /// not name come after, by name.
    public static func write(folder: String, manifest: LibraryBuildManifest, settings: LibraryFeedSettings, baseURL: String,
                             formats: [String] = [], presets: (String) -> LibraryFeedPreset?, now: Date = Date()) throws -> LibraryFeedSummary
    {
        let missing = settings.missing
        guard missing.isEmpty else { throw missingSettings(missing) }
        let feedPath = folder + "/" + fileName
        let known = (FileManager.default.contents(atPath: feedPath)).map { publicationDates(in: String(decoding: $0, as: UTF8.self)) } ?? [:]
        let nowText = rfc822(now)

        var episodes: [Episode] = []
        var chaptersWritten: [String] = []
        var cache: [String: LibraryFeedPreset?] = [:]
        // A session's files, the preferred format's first.
        let rank = { (format: String) in (formats.firstIndex(of: format) ?? formats.count, format) }
        let present = try manifest.outputs.filter { try holds($0, in: folder) }
        let sessions = Dictionary(grouping: present, by: episodeKey).values
            .map { $0.sorted { rank($0.format) < rank($1.format) } }
            .sorted { $0[0].file < $1[0].file }

        for files in sessions {
            let entry = files[0]
            let guid = guid(sha256: entry.sha256)
            let pubDate = known[guid] ?? nowText

            var chaptersFile: String?
            if let cue = entry.cueSheets.first(where: { $0.hasSuffix(".json") }),
               let data = FileManager.default.contents(atPath: folder + "/" + cue), let bytes = chapters(fromCueSheet: data)
            {
                let name = chaptersName(cueSheet: cue)
                if try writeIfChanged(bytes, to: folder + "/" + name) { chaptersWritten.append(name) }
                chaptersFile = name
            }
            let transcript = entry.cueSheets.first { $0.hasSuffix(".vtt") && LibraryBuild.fileSize(folder + "/" + $0) != nil }

            if cache[entry.preset] == nil { cache[entry.preset] = .some(presets(entry.preset)) }
            let preset = cache[entry.preset]! ?? LibraryFeedPreset(title: entry.preset, description: "")
            let title = "\(preset.title) · \(lengthText(entry))"
            let description = preset.description.isEmpty ? title : preset.description
            let seconds = Int((Double(entry.frames) / Double(max(1, entry.rate))).rounded())
            episodes.append(Episode(title: title, description: description, enclosureURL: url(baseURL, entry.file), bytes: entry.bytes,
                                    mimeType: mimeType(format: entry.format), guid: guid, pubDate: pubDate, seconds: seconds,
                                    chaptersURL: chaptersFile.map { url(baseURL, $0) }, transcriptURL: transcript.map { url(baseURL, $0) },
                                    sortKey: entry.file,
                                    alternates: files.dropFirst().map {
                                        Episode.Alternate(url: url(baseURL, $0.file), bytes: $0.bytes, mimeType: mimeType(format: $0.format))
                                    }))
        }
        let text = document(settings: settings, baseURL: baseURL, episodes: episodes, now: now)
        let wrote = try writeIfChanged(Array(text.utf8), to: feedPath)
        return LibraryFeedSummary(path: feedPath, items: episodes.count, wrote: wrote, chaptersWritten: chaptersWritten)
    }

    /// One item of a feed.
    public struct Episode: Sendable, Hashable {
        public var title: String
        public var description: String
        public var enclosureURL: String
        /// The enclosure's exact length in bytes.
        public var bytes: Int64
        public var mimeType: String
        public var guid: String
        /// RFC 822.
        public var pubDate: String
        public var seconds: Int
        public var chaptersURL: String?
        public var transcriptURL: String?
        /// What orders episodes of one date.
        public var sortKey: String
        /// The same session in other formats.
        public var alternates: [Alternate]

        /// A file of the episode in another format (`podcast:alternateEnclosure`).
        public struct Alternate: Sendable, Hashable {
            public var url: String
            public var bytes: Int64
            public var mimeType: String
        }

        public init(title: String, description: String, enclosureURL: String, bytes: Int64, mimeType: String, guid: String, pubDate: String,
                    seconds: Int, chaptersURL: String? = nil, transcriptURL: String? = nil, sortKey: String, alternates: [Alternate] = []) {
            self.alternates = alternates
            self.title = title
            self.description = description
            self.enclosureURL = enclosureURL
            self.bytes = bytes
            self.mimeType = mimeType
            self.guid = guid
            self.pubDate = pubDate
            self.seconds = seconds
            self.chaptersURL = chaptersURL
            self.transcriptURL = transcriptURL
            self.sortKey = sortKey
        }
    }

    /// The feed's XML: the channel from `settings` (which have every required key), published at
    /// `baseURL` (its `feed.xml` there), and its episodes newest first (those of one date by
    /// `sortKey`).
    public static func document(settings: LibraryFeedSettings, baseURL: String, episodes: [Episode], now: Date = Date()) -> String {
        let dated = episodes.map { (episode: $0, date: parseRFC822($0.pubDate) ?? now) }
            .sorted { $0.date != $1.date ? $0.date > $1.date : $0.episode.sortKey < $1.episode.sortKey }
        let title = settings.title!, author = settings.author!
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<rss version=\"2.0\" xmlns:itunes=\"\(itunesNamespace)\" xmlns:podcast=\"\(podcastNamespace)\" "
            + "xmlns:atom=\"http://www.w3.org/2005/Atom\">\n"
        text += "  <channel>\n"
        text += "    <title>\(xml(title))</title>\n"
        text += "    <link>\(xml(baseURL + "/"))</link>\n"
        text += "    <description>\(xml(settings.description ?? title))</description>\n"
        text += "    <language>\(xml(settings.language!))</language>\n"
        text += "    <generator>medrender \(LibraryBuild.rendererVersion)</generator>\n"
        if let newest = dated.first { text += "    <pubDate>\(newest.episode.pubDate)</pubDate>\n" }
        text += "    <atom:link href=\"\(xml(url(baseURL, fileName)))\" rel=\"self\" type=\"application/rss+xml\"/>\n"
        text += "    <itunes:author>\(xml(author))</itunes:author>\n"
        text += "    <itunes:summary>\(xml(settings.description ?? title))</itunes:summary>\n"
        text += "    <itunes:image href=\"\(xml(imageURL(settings.image!, baseURL: baseURL)))\"/>\n"
        if let sub = settings.subcategory {
            text += "    <itunes:category text=\"\(xml(settings.category!))\">\n      <itunes:category text=\"\(xml(sub))\"/>\n    </itunes:category>\n"
        } else {
            text += "    <itunes:category text=\"\(xml(settings.category!))\"/>\n"
        }
        text += "    <itunes:explicit>\(settings.explicit == true ? "true" : "false")</itunes:explicit>\n"
        text += "    <itunes:type>episodic</itunes:type>\n"
        if settings.ownerName != nil || settings.ownerEmail != nil {
            text += "    <itunes:owner>\n"
            if let name = settings.ownerName { text += "      <itunes:name>\(xml(name))</itunes:name>\n" }
            if let email = settings.ownerEmail { text += "      <itunes:email>\(xml(email))</itunes:email>\n" }
            text += "    </itunes:owner>\n"
        }
        text += "    <podcast:medium>podcast</podcast:medium>\n"
        text += channelIdentity(settings: settings, feedURL: url(baseURL, fileName))
        for (e, _) in dated { text += item(e, settings: settings) }
        text += "  </channel>\n</rss>\n"
        return text
    }

    /// One episode's `<item>`.
    static func item(_ e: Episode, settings: LibraryFeedSettings) -> String {
        var x = "    <item>\n"
        x += "      <title>\(xml(e.title))</title>\n"
        x += "      <description>\(xml(e.description))</description>\n"
        x += "      <itunes:summary>\(xml(e.description))</itunes:summary>\n"
        x += "      <enclosure url=\"\(xml(e.enclosureURL))\" length=\"\(e.bytes)\" type=\"\(e.mimeType)\"/>\n"
        // With other formats, every file is a choice, the enclosure's the default.
        if !e.alternates.isEmpty {
            let choices = [(Episode.Alternate(url: e.enclosureURL, bytes: e.bytes, mimeType: e.mimeType), true)] + e.alternates.map { ($0, false) }
            for (file, isDefault) in choices {
                x += "      <podcast:alternateEnclosure type=\"\(file.mimeType)\" length=\"\(file.bytes)\"\(isDefault ? " default=\"true\"" : "")>\n"
                x += "        <podcast:source uri=\"\(xml(file.url))\"/>\n"
                x += "      </podcast:alternateEnclosure>\n"
            }
        }
        x += "      <guid isPermaLink=\"false\">\(xml(e.guid))</guid>\n"
        x += "      <pubDate>\(e.pubDate)</pubDate>\n"
        x += "      <itunes:duration>\(e.seconds)</itunes:duration>\n"
        x += "      <itunes:explicit>\(settings.explicit == true ? "true" : "false")</itunes:explicit>\n"
        x += "      <itunes:episodeType>full</itunes:episodeType>\n"
        if let chapters = e.chaptersURL {
            x += "      <podcast:chapters url=\"\(xml(chapters))\" type=\"application/json+chapters\"/>\n"
        }
        if let transcript = e.transcriptURL {
            x += "      <podcast:transcript url=\"\(xml(transcript))\" type=\"text/vtt\"/>\n"
        }
        x += "    </item>\n"
        return x
    }

    /// The channel's `podcast:guid` (a UUIDv5 of the feed's address without its scheme and
    /// trailing slashes, in the Podcasting 2.0 namespace) and `podcast:locked` (with the owner's
    /// e-mail when given).
    public static func channelIdentity(settings: LibraryFeedSettings, feedURL: String) -> String {
        var x = "    <podcast:guid>\(podcastGUID(feedURL: feedURL))</podcast:guid>\n"
        let owner = settings.ownerEmail.map { " owner=\"\(xml($0))\"" } ?? ""
        x += "    <podcast:locked\(owner)>\(settings.locked == true ? "yes" : "no")</podcast:locked>\n"
        return x
    }

    /// The Podcasting 2.0 namespace's UUID for channel GUIDs.
    static let podcastGUIDNamespace: [UInt8] = [0xea, 0xd4, 0xc2, 0x36, 0xbf, 0x58, 0x58, 0xc6, 0xa2, 0xc6, 0xa6, 0xb2, 0x8d, 0x12, 0x8c, 0xb6]

    /// `podcast:guid` for a feed at `feedURL`: UUIDv5 (SHA-1) of the address without its scheme
    /// (`https://`) and trailing slashes, in the namespace `ead4c236-bf58-58c6-a2c6-a6b28d128cb6`.
    public static func podcastGUID(feedURL: String) -> String {
        var address = feedURL
        if let scheme = address.range(of: "://") { address = String(address[scheme.upperBound...]) }
        while address.hasSuffix("/") { address.removeLast() }
        var digest = Array(Insecure.SHA1.hash(data: podcastGUIDNamespace + Array(address.utf8)).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// The error for a feed whose settings lack `missing`.
    public static func missingSettings(_ missing: [String]) -> RenderError {
        RenderError("the feed needs \(missing.joined(separator: ", ")): add \(missing.count == 1 ? "it" : "them") under 'feed:' in the library's \(LibraryFeedSettings.fileName) (or the file {settings} names)",
                    category: .usage)
    }

    /// Whether `entry`'s file is in `folder` (a shard's output may be elsewhere); throws when it is
    /// there with another length than the manifest's.
    static func holds(_ entry: LibraryBuildManifest.Entry, in folder: String) throws -> Bool {
        let path = folder + "/" + entry.file
        guard let size = LibraryBuild.fileSize(path) else { return false }
        guard size == entry.bytes else {
            throw RenderError("\(path): is \(size) bytes but the manifest says \(entry.bytes); build again to bring them together",
                              category: .badData)
        }
        return true
    }

    static func episodeKey(_ entry: LibraryBuildManifest.Entry) -> String {
        "\(entry.preset) \(entry.minutes.map { "\($0)" } ?? "") \(entry.cycles.map { "\($0)" } ?? "") \(entry.rate)"
    }

    static func lengthText(_ entry: LibraryBuildManifest.Entry) -> String {
        if let cycles = entry.cycles { return "\(cycles) cycles" }
        if let minutes = entry.minutes { return minutes == minutes.rounded() ? "\(Int(minutes)) min" : "\(minutes) min" }
        return "\(Int((Double(entry.frames) / Double(max(1, entry.rate))).rounded())) s"
    }

    /// `base/name`, the name percent-encoded as a path segment.
    public static func url(_ base: String, _ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#")
        return base + "/" + (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)
    }

    /// The image's absolute address: itself when it is an http(s) URL, else relative to the base.
    static func imageURL(_ image: String, baseURL: String) -> String {
        if LibraryFeedSettings.baseURL(image) != nil { return image }
        var path = image
        while path.hasPrefix("./") { path.removeFirst(2) }
        return baseURL + "/" + path
    }

    /// The `pubDate` of each GUID an earlier feed lists.
    static func publicationDates(in text: String) -> [String: String] {
        guard let pattern = try? NSRegularExpression(pattern: "<guid isPermaLink=\"false\">([^<]*)</guid>\\s*<pubDate>([^<]*)</pubDate>")
        else { return [:] }
        var result: [String: String] = [:]
        let ns = text as NSString
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let date = ns.substring(with: match.range(at: 2))
            guard parseRFC822(date) != nil else { continue }
            result[unescapeXML(ns.substring(with: match.range(at: 1)))] = date
        }
        return result
    }

    static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter
    }

    /// An RFC 822 date, as RSS 2.0 writes it: `Wed, 25 Nov 2026 00:20:03 +0000`.
    public static func rfc822(_ date: Date) -> String { formatter().string(from: date) }

    static func parseRFC822(_ text: String) -> Date? { formatter().date(from: text) }

    /// Writes `bytes` to `path` atomically unless the file there has them; returns whether it wrote.
    static func writeIfChanged(_ bytes: [UInt8], to path: String) throws -> Bool {
        if let existing = FileManager.default.contents(atPath: path), Array(existing) == bytes { return false }
        let file = try AtomicOutputFile(path: path)
        try file.write(bytes)
        try file.commit()
        return true
    }

    static func xml(_ text: String) -> String { MarkupText.escaped(text) }

    static func unescapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Seconds as JSON: whole numbers without a fraction, else up to millisecond precision.
    static func jsonNumber(_ seconds: Double) -> String {
        if seconds == seconds.rounded() { return String(Int(seconds)) }
        var text = String(format: "%.3f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
