import Foundation
import Hummingbird
import Medrender
import MedrenderCore
import MedrenderVideo
import NIOCore

/// `GET /video?preset=…&minutes=…[&container=mp4|webm][&size=…][&fps=…][&background=#rrggbb[-#rrggbb]]`:
/// the session's video, as `medrender video` writes it, with the render's parameters for the
/// session. It is rendered whole into a file of its own (an MP4's index comes last), on a thread
/// of its own, holding a render place, then served with its `Content-Length` and ranges (a
/// `<video>` seeks by them). A client names colours only: no file of the server's is read for it.
extension MedrenderService {
    /// The picture's parameters, beside the render's.
    static let videoParameters = ["container", "size", "fps", "background"]

    /// The video's settings from its own parameters, with the command line's checks.
    static func videoSettings(_ pairs: [(String, String)]) throws -> VideoSettings {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard values[name] == nil else { throw VideoError("--\(name) is given twice; give it once", category: .usage) }
            values[name] = value
        }
        let containerName = values["container"] ?? "mp4"
        guard let container = VideoContainer(rawValue: containerName) else {
            throw VideoError("container=\(containerName): the video is mp4 or webm", category: .usage)
        }
        var settings = VideoSettings(container: container)
        if let size = values["size"] { settings.size = try VideoSize.parse(size) }
        if let fps = values["fps"] {
            guard let value = Int(fps) else { throw VideoError("--fps \(fps): not a whole number", category: .usage) }
            settings.fps = value
        }
        if let background = values["background"] {
            guard background.hasPrefix("#") else {
                throw VideoError("background=\(background): the service takes a colour, #rrggbb or #rrggbb-#rrggbb (an image only on the command line)",
                                 category: .usage)
            }
            settings.background = try VideoBackground.parse(background)
        }
        try settings.validate()
        return settings
    }

    func video(_ request: Request, head: Bool) async -> Response {
        do {
            let all = Self.options(request)
            let settings = try Self.videoSettings(all.filter { Self.videoParameters.contains($0.0) })
            let (job, _, _, _) = try self.job(for: all.filter { !Self.videoParameters.contains($0.0) })
            let folder = NSTemporaryDirectory() + "/medrender-video-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = "\(folder)/session.\(settings.container.rawValue)"
            try await onRenderPlace(request) {
                _ = try VideoRender.write(try job.prepare(), settings: settings, to: path)
            }
            // Open, then let the folder go: the open file stays readable until it is closed.
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw VideoError("the video could not be read back", category: .io) }
            var info = stat()
            fstat(fd, &info)
            let headers: HTTPFields = [.contentType: settings.container.mimeType, .acceptRanges: "bytes", .cacheControl: "no-store"]
            return fileResponse(fd: fd, length: Int64(info.st_size), request: request, head: head, headers: headers, done: {})
        } catch {
            return errorResponse(error)
        }
    }

    /// Runs `body` on a thread of its own while holding a render place and the client's share, so
    /// a long render blocks none of the server's tasks.
    func onRenderPlace(_ request: Request, _ body: @escaping @Sendable () throws -> Void) async throws {
        try await gated(request) {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                let thread = Thread {
                    done.resume(with: Result { try body() })
                }
                thread.name = "medrender video"
                thread.start()
            }
        }
    }
}
