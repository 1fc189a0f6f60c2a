import Foundation
@testable import MedrenderBuild
import Testing

/// The feed's pieces: its URL, its escaping, its chapters and the dates it keeps.
@Suite struct LibraryFeedTests {
    @Test(arguments: [
        ("https://example.org/sessions/", "https://example.org/sessions"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("HTTPS://example.org/a/feed.xml", "HTTPS://example.org/a"),
    ])
    func aFeedURLIsTheFolderItIsPublishedAt(text: String, base: String) {
        #expect(LibraryFeedSettings.baseURL(text) == base)
    }

    @Test(arguments: ["ftp://example.org/", "example.org/sessions", "/sessions", "https://", "https://example.org/?a=1", "https://example.org/a b"])
    func aURLThatIsNotAbsoluteHTTPIsNone(text: String) {
        #expect(LibraryFeedSettings.baseURL(text) == nil)
    }

    @Test func textIsEscapedForXMLAndNamesForURLs() {
        #expect(LibraryFeed.xml("a < b & \"c\" > 'd'") == "a &lt; b &amp; &quot;c&quot; &gt; &#39;d&#39;")
        #expect(LibraryFeed.xml("x\u{1}y") == "x y")
        #expect(LibraryFeed.url("https://e.org", "a b#1.ogg") == "https://e.org/a%20b%231.ogg")
    }

    @Test func chaptersAreTheCueSheetsSections() throws {
        let cue = #"{"rate": 8000, "frames": 576000, "sections": [{"name": "Settle", "frame": 0, "seconds": 0.0}, {"name": "Breathing \"deep\"", "frame": 76800, "seconds": 9.6}], "events": []}"#
        let bytes = try #require(LibraryFeed.chapters(fromCueSheet: Data(cue.utf8)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["version"] as? String == "1.2.0")
        let chapters = try #require(object["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Settle", "Breathing \"deep\""])
        #expect(chapters.map { ($0["startTime"] as? NSNumber)?.doubleValue } == [0, 9.6])
        #expect(LibraryFeed.chapters(fromCueSheet: Data("not json".utf8)) == nil)
        #expect(LibraryFeed.chaptersName(cueSheet: "box-breath-15min.json") == "box-breath-15min.chapters.json")
    }

    @Test func anEarlierFeedsDatesAreKeptByGUID() {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let text = LibraryFeed.rfc822(date)
        #expect(text == "Fri, 15 Jan 2027 08:00:00 +0000")
        let feed = "<item>\n<guid isPermaLink=\"false\">urn:sha256:ab</guid>\n      <pubDate>\(text)</pubDate>\n</item>"
            + "<item><guid isPermaLink=\"false\">urn:sha256:cd</guid><pubDate>not a date</pubDate></item>"
        #expect(LibraryFeed.publicationDates(in: feed) == ["urn:sha256:ab": text])
    }

    @Test func missingSettingsAreNamedInOrder() {
        var settings = LibraryFeedSettings(title: "T", author: "A", language: "en", category: "Health & Fitness")
        #expect(settings.missing == ["image", "explicit"])
        settings.image = "cover.png"
        settings.explicit = false
        #expect(settings.missing.isEmpty)
    }
}

/// The channel's identity tags of Podcasting 2.0.
@Suite struct FeedChannelIdentityTests {
    /// The namespace's own example: the feed `https://podnews.net/rss` has the GUID
    /// `9b024349-ccf0-5f69-a609-6b82873eab3c`; the scheme and trailing slashes do not count.
    @Test(arguments: ["https://podnews.net/rss", "http://podnews.net/rss/", "podnews.net/rss"])
    func thePodcastGUIDIsTheNamespacesUUIDv5(url: String) {
        #expect(LibraryFeed.podcastGUID(feedURL: url) == "9b024349-ccf0-5f69-a609-6b82873eab3c")
    }

    @Test func lockedSaysYesOnlyWhenAsked() {
        var settings = LibraryFeedSettings(ownerEmail: "a@example.org")
        #expect(LibraryFeed.channelIdentity(settings: settings, feedURL: "https://x.org/feed.xml").contains("<podcast:locked owner=\"a@example.org\">no</podcast:locked>"))
        settings.locked = true
        #expect(LibraryFeed.channelIdentity(settings: settings, feedURL: "https://x.org/feed.xml").contains(">yes</podcast:locked>"))
    }
}
