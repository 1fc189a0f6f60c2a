import Foundation
import Hummingbird
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderVideo
import NIOCore

/// `GET /video?preset=…&minutes=…[&container=mp4|webm][&size=…][&fps=…][&background=#rrggbb[-#rrggbb]]`:
/// the session's video, as `medrender video` writes it, with the render's parameters for the
/// session. It is rendered whole into the render cache (an MP4's index comes last), on a thread
/// of its own, holding a render place, then served with its `Content-Length`, ranges (a `<video>`
/// seeks by them) and an ETag; a repeat comes from the cache. A client names colours only: no file
/// of the server's is read for it.
extension MedrenderService {
    /// The picture's parameters, beside the render's.
    static let videoParameters = ["container", "size", "fps", "background"]

    /// The video's settings from its own parameters, with the command line's checks.
    static func videoSettings(_ pairs: [(String, String)]) throws -> VideoSettings {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard values[name] == nil else { throw ParameterError(name, "is given twice; give it once") }
            values[name] = value
        }
        let containerName = values["container"] ?? "mp4"
        guard let container = VideoContainer(rawValue: containerName) else {
            throw RenderError("container=\(containerName): the video is mp4 or webm", category: .usage)
        }
        var settings = VideoSettings(container: container)
        if let size = values["size"] { settings.size = try VideoSize.parse(size) }
        if let fps = values["fps"] {
            guard let value = Int(fps) else { throw ParameterError("fps", value: fps, "is not a whole number; give frames a second, such as 30") }
            settings.fps = value
        }
        if let background = values["background"] {
            guard background.hasPrefix("#") else {
                throw RenderError("background=\(background): the service takes a colour, #rrggbb or #rrggbb-#rrggbb (an image only on the command line)",
                                 category: .usage)
            }
            settings.background = try VideoBackground.parse(background)
        }
        try settings.validate()
        return settings
    }

    func video(_ request: Request, head: Bool) async throws -> Response {
        let all = Self.options(request)
        let settings = try Self.videoSettings(all.filter { Self.videoParameters.contains($0.0) })
        let (job, _, identity, _) = try await self.job(for: all.filter { !Self.videoParameters.contains($0.0) }, request: request)
        try checkVideoSize(settings, seconds: Double(try job.outline().total.milliseconds) / 1000)
        let key = Self.videoIdentity(identity, settings)
        let ext = settings.container.rawValue
        let headers: HTTPFields = [
            .contentType: settings.container.mimeType, .acceptRanges: "bytes", .eTag: "\"\(key)\"",
            // The same query to the same renderer gives the same video.
            .cacheControl: "public, max-age=31536000, immutable",
        ]
        if Self.matches(request, identity: key) { return Response(status: .notModified, headers: headers, body: ResponseBody()) }
        if let response = try videoFile(cache.entry(key: key, ext: ext), request: request, head: head, headers: headers) {
            metrics.hit()
            return response
        }
        metrics.miss()
        // One render of a video at a time, across every server sharing the cache folder: a
        // second request for it waits for the first and is then served from the cache.
        let keyLock = await cache.lock(key: key)
        defer { keyLock?.release() }
        if let response = try videoFile(cache.entry(key: key, ext: ext), request: request, head: head, headers: headers) { return response }
        let temporary = cache.temporaryPath(key: key, ext: ext)
        var removeTemporary = true
        defer { if removeTemporary { unlink(temporary) } }
        // A client that leaves stops the render at the next frame: nothing is kept of it.
        let gone = Departure()
        let connection = request.headers[.medrenderConnection].flatMap { UInt64($0) }
        let watch = connection.map { connections.watch($0) { gone.leave() } }
        defer { if let connection, let watch { connections.unwatch(connection, token: watch) } }
        try await onRenderPlace(request) {
            _ = try VideoRender.write(try job.prepare(), settings: settings, to: temporary) { _, _ in
                if gone.hasLeft { throw RenderError("the client went away; the video was stopped", category: .io) }
            }
        }
        // Opened before it is put in place: the answer reads it even if the cache lets it go.
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RenderError("the video could not be read back", category: .io) }
        var info = stat()
        fstat(fd, &info)
        do {
            _ = try cache.commit(temporary: temporary, key: key, ext: ext, length: Int64(info.st_size))
            removeTemporary = false
        } catch {
            cache.reportUnwritable("\(error)")
        }
        return try fileResponse(fd: fd, length: Int64(info.st_size), request: request, head: head, headers: headers, done: {})
    }

    /// Refuses a video larger than the server makes (`maximumVideoMegapixels`): its size × fps × seconds.
    func checkVideoSize(_ video: VideoSettings, seconds: Double) throws {
        let megapixels = Double(video.size.width * video.size.height * video.fps) * seconds / 1e6
        guard megapixels > settings.maximumVideoMegapixels else { return }
        throw RenderError(String(format: "this video is %.0f megapixels (size × fps × seconds); this server makes videos of up to %.0f; "
            + "ask for a smaller size, fewer fps or fewer minutes", megapixels, settings.maximumVideoMegapixels), category: .usage)
    }

    /// The video's identity: the session's render identity and the picture's settings.
    static func videoIdentity(_ identity: String, _ settings: VideoSettings) -> String {
        var h = SHA256Hasher()
        h.update("medrender video \(identity)\n")
        h.update(fields: settings)
        return String(h.finalizeHex().prefix(40))
    }

    /// A cache entry as the answer (its length, ranges), or nil when there is none or it cannot be opened.
    private func videoFile(_ entry: RenderCache.Entry?, request: Request, head: Bool, headers: HTTPFields) throws -> Response? {
        guard let entry else { return nil }
        let fd = open(entry.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return try fileResponse(fd: fd, length: entry.length, request: request, head: head, headers: headers, done: {})
    }

    /// Runs `body` on a thread of its own while holding a render place and the client's share, so
    /// a long render blocks none of the server's tasks.
    func onRenderPlace(_ request: Request, _ body: @escaping @Sendable () throws -> Void) async throws {
        try await gated(request, body)
    }
}
