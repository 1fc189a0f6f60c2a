import ArgumentParser
import Foundation
import MedrenderBuild
import MedrenderPresets
import MedrenderServer

/// `serve --feed URL`: the podcast feed of the library the server serves, at `/feed.xml`.
struct ServeFeedOptions: ParsableArguments {
    @Option(name: .long, help: "Serve a podcast feed at /feed.xml whose episodes are this server's /render of each preset (MP3); URL is the address the server is reached at, absolute http(s).")
    var feed: String?

    @Option(name: .customLong("feed-settings"), help: "The feed's settings file (feed: title, author, image, language, category, explicit…); default: library.yaml in the first --library folder, else the library's.",
            completion: .file(extensions: ["yaml"]))
    var feedSettings: String?

    func validate() throws {
        if let feed, LibraryFeedSettings.baseURL(feed) == nil {
            throw ValidationError(LibraryFeedSettings.urlProblem(feed, option: "--feed"))
        }
        if feed == nil, feedSettings != nil { throw ValidationError("--feed-settings is for the feed: give --feed URL too") }
    }

    /// The feed to serve, with its settings checked (what is missing is named), or nil without `--feed`;
    /// `folders` are the `--library` folders, whose first holds the default settings file.
    func served(library: PresetLibrary, folders: [String]) throws -> ServedFeed? {
        guard let feed, let base = LibraryFeedSettings.baseURL(feed) else { return nil }
        let settingsLibrary = folders.first.map { PresetLibrary(root: $0) } ?? library
        guard let resolved = try BuildFeed.resolve(feed: base, settingsOption: feedSettings, library: settingsLibrary) else { return nil }
        return ServedFeed(settings: resolved.settings, baseURL: resolved.baseURL)
    }
}
