import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What every request passes first, in this order, reading the route table (`ServedRoute`): an
/// unknown path is a 404 that names the paths; `OPTIONS` is a preflight that grants only the
/// origins the operator listed; a method the route does not answer is a 405; a `Host` that names
/// neither an address nor a name the server is reached by is a 403 (a page of another site that
/// rebinds its name to this server's address); a request that runs work or changes state from a
/// page of another origin is a 403; with keys, a request without a known one is a 401 (the same
/// answer for a wrong key and a missing one). Then one JSON log line per request, once its body
/// is sent: its id, the key's id (never the key, however spelled in the query), method, path,
/// status, bytes and milliseconds; and the request counted in the metrics.
struct FrontDoor<Context: RequestContext>: RouterMiddleware {
    let service: MedrenderService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let route = ServedRoute.matching(request.uri.path)
        var (response, keyID) = await answer(request, route: route) { try await next(request, context) }
        if let origin = service.origins.granted(request) { CrossOrigin.grant(origin, to: &response.headers) }
        if request.method == .head, response.status != .ok, response.status != .partialContent {
            response = MedrenderService.headOnly(response, true)
        }
        service.metrics.request(route: route?.path ?? "other", status: Int(response.status.code))
        return logged(response, request: request, keyID: keyID, start: start)
    }

    /// The answer: a refusal of the front door's, or the route's own (its errors mapped to their
    /// statuses); and the id of the key that asked, "-" for none.
    private func answer(_ request: Request, route: ServedRoute?, next: () async throws -> Response) async -> (Response, String) {
        guard let route else {
            return (MedrenderService.text(.notFound, "no such path '\(request.uri.path.prefix(200))'; the paths are "
                + MedrenderService.routes.joined(separator: ", ")), "-")
        }
        if request.method == .options { return (service.origins.preflight(request, route: route), "-") }
        guard route.answers(request.method) else {
            let served = "only \(route.allowed.replacingOccurrences(of: ", ", with: " and ")) \(route.takesHead ? "are" : "is") served"
            return (MedrenderService.text(.methodNotAllowed, "\(request.method) \(request.uri.path): \(served)",
                                          headers: [.allow: route.allowed]), "-")
        }
        if let refusal = service.origins.refusal(request, route: route) { return (MedrenderService.text(.forbidden, refusal), "-") }
        var keyID = "-"
        if service.keys != nil, route.keyed {
            switch service.keyOf(request) {
            case .known(let id): keyID = id
            case .refused(let message):
                return (MedrenderService.text(.unauthorized, message, headers: [.wwwAuthenticate: "Bearer"]), "-")
            }
        }
        do {
            return (try await next(), keyID)
        } catch {
            // The one place a route's error becomes its answer (`ServeError`'s mapping): routes throw.
            return (service.errorResponse(error), keyID)
        }
    }

    /// The response with its body counted and one log line written when it is sent.
    private func logged(_ response: Response, request: Request, keyID: String, start: ContinuousClock.Instant) -> Response {
        let id = UUID().uuidString.prefix(8).lowercased()
        let logger = service.logger, target = Self.loggedTarget(request), method = request.method.rawValue
        let status = Int(response.status.code)
        @Sendable func log(bytes: Int, outcome: String?) {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            var metadata: Logger.Metadata = [
                "request": "\(id)", "key": "\(keyID)", "method": "\(method)", "target": "\(target)", "status": "\(status)",
                "bytes": "\(bytes)", "ms": "\(String(format: "%.1f", ms))",
            ]
            if let outcome { metadata["outcome"] = "\(outcome)" }
            logger.info("request", metadata: metadata)
        }
        var response = response
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

    /// The target as logged: the value of a secret parameter is left out, however its name is
    /// spelled (`%6Bey`, `KEY`), since the server reads the name decoded.
    static func loggedTarget(_ request: Request) -> String {
        guard let query = request.uri.query, !query.isEmpty else { return request.uri.path }
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let decoded = String(name).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(name)
            return QuerySecrets.names.contains(decoded.lowercased()) ? "\(name)=…" : String(part)
        }
        return request.uri.path + "?" + parts.joined(separator: "&")
    }
}

/// The query parameters that carry a secret: a key, or a grant to hear one render.
enum QuerySecrets {
    static let names: Set<String> = ["key", "grant"]
}

/// Bytes sent so far, counted from the body's writer.
final class ByteCount: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
