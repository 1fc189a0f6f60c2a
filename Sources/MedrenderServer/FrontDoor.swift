import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What every request passes first: an unknown path is a 404 that names the paths, a method other
/// than GET or HEAD a 405; with keys, a request without a known one is a 401 (the same answer for
/// a wrong key and a missing one). Then one JSON log line per request, once its body is sent:
/// its id, the key's id (never the key), method, path, status, bytes and milliseconds; and the
/// request counted in the metrics.
struct FrontDoor<Context: RequestContext>: RouterMiddleware {
    let service: MedrenderService

    /// The key a request gives: `Authorization: Bearer KEY`, else `?key=KEY`.
    static func key(of request: Request) -> String? {
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        return MedrenderService.query(request).first { $0.0 == "key" }?.1
    }

    /// The route a path is answered by, as the metrics name it; nil for none.
    static func route(_ path: String) -> String? {
        if path.hasPrefix("/presets/"), path.count > 9, !path.dropFirst(9).contains("/") { return "/presets/NAME" }
        if let studio = StudioRoutes.route(path) { return studio }
        if path == "/video" || path == "/feed.xml" { return path }
        return ["/presets", "/render", "/cues", "/preview", "/healthz", "/metrics"].contains(path) ? path : nil
    }

    /// The query as logged: a key's value is left out.
    static func loggedTarget(_ request: Request) -> String {
        guard let query = request.uri.query, !query.isEmpty else { return request.uri.path }
        let parts = query.split(separator: "&").map { $0.hasPrefix("key=") ? "key=…" : String($0) }
        return request.uri.path + "?" + parts.joined(separator: "&")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let id = UUID().uuidString.prefix(8).lowercased()
        var keyID = "-"
        let route = Self.route(request.uri.path)
        var response: Response
        if route == nil {
            response = MedrenderService.text(.notFound, "no such path '\(request.uri.path.prefix(200))'; the paths are "
                + MedrenderService.routes.joined(separator: ", "))
        } else if StudioRoutes.takesPost(request.uri.path) ? request.method != .post : (request.method != .get && request.method != .head) {
            let allowed = StudioRoutes.takesPost(request.uri.path) ? "POST" : "GET, HEAD"
            let served = allowed == "POST" ? "only POST is served" : "only GET and HEAD are served"
            response = MedrenderService.text(.methodNotAllowed, "\(request.method) \(request.uri.path): \(served)",
                                             headers: [.allow: allowed])
        } else if let keys = service.keys, route != "/healthz",
            (Self.key(of: request).flatMap { keys.id(of: $0) }) == nil
        {
            response = MedrenderService.text(.unauthorized, "this server asks for a key: give 'Authorization: Bearer KEY' or '?key=KEY'",
                                             headers: [.wwwAuthenticate: "Bearer"])
        } else {
            if let keys = service.keys, let key = Self.key(of: request), let known = keys.id(of: key) { keyID = known }
            do {
                response = try await next(request, context)
            } catch let error as HTTPError {
                response = MedrenderService.text(error.status, error.body ?? "\(error.status)")
            } catch {
                // The one place a route's error becomes its answer (`errorResponse`): routes throw.
                response = service.errorResponse(error)
            }
        }
        if request.method == .head, response.status != .ok, response.status != .partialContent {
            response = MedrenderService.headOnly(response, true)
        }
        let status = Int(response.status.code)
        service.metrics.request(route: route ?? "other", status: status)
        let logger = service.logger, target = Self.loggedTarget(request), method = request.method.rawValue
        let key = keyID
        @Sendable func log(bytes: Int, outcome: String?) {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            var metadata: Logger.Metadata = [
                "request": "\(id)", "key": "\(key)", "method": "\(method)", "target": "\(target)", "status": "\(status)",
                "bytes": "\(bytes)", "ms": "\(String(format: "%.1f", ms))",
            ]
            if let outcome { metadata["outcome"] = "\(outcome)" }
            logger.info("request", metadata: metadata)
        }
        let body = response.body
        let counter = ByteCount()
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            do {
                try await body.map { buffer in
                    counter.add(buffer.readableBytes)
                    return buffer
                }.write(writer)
                log(bytes: counter.value, outcome: nil)
            } catch {
                log(bytes: counter.value, outcome: "ended early: \(error)")
                throw error
            }
        }
        return response
    }
}

/// Bytes sent so far, counted from the body's writer.
final class ByteCount: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
