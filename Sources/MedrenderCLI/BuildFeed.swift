import Foundation
import Medrender
import MedrenderBuild
import MedrenderPresets

/// The podcast feed a build or a merge writes with `--feed URL` (or `feed: url:` in the library's
/// `library.yaml`): its settings, checked before anything is rendered, and the writing.
struct BuildFeed {
    var settings: LibraryFeedSettings
    /// Where the output folder is published, without a trailing `/`.
    var baseURL: String

    /// The feed settings file: `--settings FILE`, else the first `library.yaml` of the libraries,
    /// a teacher's (`--library`) before the stock one's.
    static func settingsFile(_ option: String?, library: PresetLibrary) -> String? {
        if let option { return option }
        return library.roots.map { $0 + "/" + LibraryFeedSettings.fileName }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The feed to write, or nil when neither `--feed` nor the settings file asks for one. Throws,
    /// before anything is built, when its URL is not absolute http(s) or its settings are missing.
    static func resolve(feed: String?, settingsOption: String?, library: PresetLibrary) throws -> BuildFeed? {
        let file = settingsFile(settingsOption, library: library)
        let settings = try file.map { try LibraryFeedSettings.read(path: $0) } ?? LibraryFeedSettings()
        guard let text = feed ?? settings.url else { return nil }
        guard let base = LibraryFeedSettings.baseURL(text) else {
            throw RenderError(LibraryFeedSettings.urlProblem(text, option: feed != nil ? "--feed" : "\(file ?? "settings"): feed.url"),
                              category: feed != nil ? .usage : .badData)
        }
        let missing = settings.missing
        guard missing.isEmpty else {
            let list = missing.joined(separator: ", "), them = missing.count == 1 ? "it" : "them"
            if let file { throw RenderError("\(file): the feed needs \(list); add \(them) under 'feed:'", category: .usage) }
            throw RenderError("the feed needs \(list), and the library has no \(LibraryFeedSettings.fileName); write \(them) under 'feed:' in \(library.roots[0])/\(LibraryFeedSettings.fileName), or name a settings file with --settings FILE",
                              category: .usage)
        }
        return BuildFeed(settings: settings, baseURL: base)
    }

    /// Writes `feed.xml` in `folder` from the manifest at `manifestPath`; `presetFiles` maps preset
    /// names to their files (a preset not in it is looked up in the library by name).
    /// `formats`, the build's, in the order named: the first is each episode's enclosure.
    func write(folder: String, manifestPath: String, presetFiles: [String: String], formats: [String] = [],
               library: PresetLibrary) throws -> LibraryFeedSummary {
        let manifest = try LibraryBuildManifest.read(manifestPath)
        let languages = try library.languages()
        return try LibraryFeed.write(folder: folder, manifest: manifest, settings: settings, baseURL: baseURL, formats: formats) { name in
            guard let file = presetFiles[name] ?? (try? library.presetPath(name)),
                  let session = try? PresetDecoder.load(path: file, languages: languages) else { return nil }
            return LibraryFeedPreset(title: Self.title(session.name), description: session.description)
        }
    }

    /// A preset's name as a title: `box-breath` → `Box breath`.
    static func title(_ name: String) -> String {
        let words = name.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
