import Foundation
import HTTPTypes
import Hummingbird
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderPresets
import NIOCore

/// The podcast feed the server gives with `serve --feed URL`: what a build's `feed.xml` says, for
/// the presets it serves (those of its `--library` folders, else all), each an episode at the
/// preset's own length whose enclosure is the server's own `/render` of it (MP3). An enclosure's
/// length is exact: the feed renders each episode into the render cache (or finds it there) before
/// it answers, so a podcast client's download matches it byte for byte; the server renders them
/// there when it starts (`warmFeed`), so the feed's first request need not wait. The chapters
/// (`podcast:chapters`) are the server's `/cues` as JSON chapters, one per section, and the
/// transcript (`podcast:transcript`) its WebVTT, with the words a guided script speaks.
public struct ServedFeed: Sendable {
    public var settings: LibraryFeedSettings
    /// The server's public address, without a trailing `/`: the feed's links start with it.
    public var baseURL: String

    public init(settings: LibraryFeedSettings, baseURL: String) {
        self.settings = settings
        self.baseURL = baseURL
    }

    /// The episodes' format.
    static let format = "mp3"
}

extension MedrenderService {
    /// The presets the feed lists, by name, sorted: those of the front folders (`--library`) when
    /// there are any, else every preset of the library.
    func feedPresetNames() -> [String] {
        let library = settings.library
        let files = library.presetFiles()
        let front = library.front.map { URL(fileURLWithPath: $0).standardizedFileURL.path + "/" }
        let chosen = front.isEmpty ? files : files.filter { file in
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            return front.contains { path.hasPrefix($0) }
        }
        let names = Set(chosen.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        return names.sorted()
    }

    func feed(_ request: Request, head: Bool) async throws -> Response {
        guard let feed = settings.feed else {
            return Self.text(.notFound, "this server gives no feed: it was started without the address it is reached at, which a feed's links need")
        }
        // Every episode's length at once: the renders not yet in the cache (the warm-up at
        // start renders them) go side by side, as many as the render places allow.
        let names = feedPresetNames()
        let client = client(of: request)
        let lengths = try await withThrowingTaskGroup(of: (String, Int64).self) { group in
            for name in names {
                group.addTask {
                    let (job, format, identity, _) = try await self.job(for: [("preset", name), ("format", ServedFeed.format)], request: request)
                    return (name, try await self.renderedLength(job: job, identity: identity, format: format, client: client))
                }
            }
            var lengths: [String: Int64] = [:]
            for try await (name, length) in group { lengths[name] = length }
            return lengths
        }
        var episodes: [LibraryFeed.Episode] = []
        for name in names {
            let query = "preset=\(Self.queryEscaped(name))&format=\(ServedFeed.format)"
            let (job, _, identity, _) = try await self.job(for: [("preset", name), ("format", ServedFeed.format)], request: request)
            guard let length = lengths[name] else { throw RenderError("the episode \(name) has no length", category: .internal) }
            let file = try ServedLibrary(settings.library).presetFile(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
            let title = job.session.metadata.title ?? Self.feedTitle(name)
            let seconds = Int((Double(try job.outline().total.milliseconds) / 1000).rounded())
            let description = job.session.description.isEmpty ? title : job.session.description
            episodes.append(LibraryFeed.Episode(
                title: title, description: description, enclosureURL: feed.baseURL + "/render?" + query, bytes: length,
                mimeType: LibraryFeed.mimeType(format: ServedFeed.format), guid: "urn:medrender:render:" + identity,
                pubDate: LibraryFeed.rfc822(modified), seconds: seconds,
                chaptersURL: feed.baseURL + "/cues?" + query + "&sheet=chapters",
                transcriptURL: feed.baseURL + "/cues?" + query + "&sheet=vtt", sortKey: name))
        }
        let text = LibraryFeed.document(settings: feed.settings, baseURL: feed.baseURL, episodes: episodes)
        let body = ByteBuffer(string: text)
        let headers: HTTPFields = [.contentType: "application/rss+xml; charset=utf-8", .contentLength: "\(body.readableBytes)"]
        return Response(status: .ok, headers: headers, body: head ? ResponseBody() : ResponseBody(byteBuffer: body))
    }

    /// Renders the feed's episodes into the render cache when the server starts (those not there
    /// already, one after another), so that a podcast client's first request for the feed finds
    /// their lengths instead of waiting for every render. Failures are left for the feed's own
    /// request to answer.
    func warmFeed() async {
        guard settings.feed != nil else { return }
        for name in feedPresetNames() {
            if Task.isCancelled { return }
            guard let (job, format, identity, _) = try? await self.job(for: [("preset", name), ("format", ServedFeed.format)], request: nil)
            else { continue }
            _ = try? await renderedLength(job: job, identity: identity, format: format, client: "feed")
        }
    }

    /// The length of a render in the cache, rendering it there first when it is not (or joining
    /// the render of it under way).
    func renderedLength(job: RenderJob, identity: String, format: OutputFormat, client: String) async throws -> Int64 {
        let ext = format.fileExtension
        if let entry = cache.entry(key: identity, ext: ext) { return entry.length }
        let (flight, isNew) = await flights.join(identity) { makeFlight(key: identity, ext: ext, largestBytes: Self.largestBytes(job, format: format)) }
        if isNew { start(flight, job: job, ext: ext, client: client) }
        defer { flight.removeReader() }
        var (written, state) = flight.snapshot
        while case .running = state {
            await flight.wait(beyond: written)
            (written, state) = flight.snapshot
        }
        switch state {
        case .finished(_, let length), .finishedInMemory(let length): return length
        case .failed(let error): throw error
        case .running: throw RenderError("the render of the episode did not end", category: .internal)
        }
    }

    /// A preset's name as a title: `box-breath` → `Box breath`.
    static func feedTitle(_ name: String) -> String {
        let words = name.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
