import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Which pages may drive the server, as a local web app guards itself: a request that runs work
/// or changes state is refused when it comes from a page of another origin (its `Origin`, which a
/// browser sends with every POST and every script's cross-origin request, or for a POST that
/// carries none, the browser's `Sec-Fetch-Site`), unless the operator listed that origin
/// (`--allow-origin`); any request but `/healthz` is refused when its `Host` names neither
/// an IP address, `localhost`, the address the server is bound to, nor a name the operator listed
/// (`--allow-host`): a site that points its own name at this server's address (DNS rebinding)
/// sends its own name there.
struct OriginPolicy: Sendable {
    /// Origins granted besides the server's own, lower-cased, as `scheme://host[:port]`.
    let allowedOrigins: Set<String>
    /// Host names accepted besides IP addresses and `localhost`, lower-cased.
    let allowedHosts: Set<String>

    init(settings: MedrenderService.Settings) {
        allowedOrigins = Set(settings.allowedOrigins.map { Self.trimmedOrigin($0) })
        allowedHosts = Set((settings.allowedHosts + [settings.host]).map { $0.lowercased() })
    }

    /// An origin as browsers send it: lower-cased, without a trailing `/`.
    static func trimmedOrigin(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// Why the front door refuses `request` (a 403's text), or nil.
    func refusal(_ request: Request, route: ServedRoute) -> String? {
        if route.path != "/healthz", let authority = request.head.authority, !accepts(host: authority) {
            return "Host '\(authority.prefix(100))' is not a name this server is reached by; ask for it by its address, or start "
                + "it to allow each name it serves under"
        }
        guard route.works || request.method == .post else { return nil }
        if let origin = request.headers[.origin] {
            if isSameOrigin(origin, request) || allowedOrigins.contains(Self.trimmedOrigin(origin)) { return nil }
            return "a page of \(origin.prefix(100)) may not ask this server for \(route.path); only its own pages may, "
                + "and the origins its operator allows"
        }
        // A GET without Origin is what a media element, an image or a link sends: a page of
        // another site may embed a session's audio (it runs no program and reads no file, and the
        // render limits bound it). Anything else without Origin that a browser says came from
        // another site's page is refused.
        let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]
        if request.method != .get, request.method != .head, site == "cross-site" || site == "same-site" {
            return "a page of another site may not ask this server for \(route.path); open it from the server's own pages"
        }
        return nil
    }

    /// Whether `origin` is the request's own: the scheme aside, the same host and port as `Host`.
    func isSameOrigin(_ origin: String, _ request: Request) -> Bool {
        guard let authority = request.head.authority?.lowercased(), let range = origin.range(of: "://") else { return false }
        return Self.trimmedOrigin(String(origin[range.upperBound...])) == authority
    }

    /// Whether a `Host` value names this server: an IP address, `localhost`, or a listed name.
    func accepts(host authority: String) -> Bool {
        var host = authority.lowercased()
        if host.hasPrefix("[") {
            // [v6]:port
            guard let end = host.firstIndex(of: "]") else { return false }
            return Self.isAddress(String(host[host.index(after: host.startIndex)..<end]))
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host.hasSuffix(".") { host.removeLast() }
        return host == "localhost" || Self.isAddress(host) || allowedHosts.contains(host)
    }

    /// Whether `text` is an IPv4 or IPv6 address. The corresponding C function is `inet_pton`.
    static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// The origin to grant a cross-origin answer to: the request's, when it is listed.
    func granted(_ request: Request) -> String? {
        guard let origin = request.headers[.origin], allowedOrigins.contains(Self.trimmedOrigin(origin)) else { return nil }
        return origin
    }

    /// The answer to `OPTIONS`: the route's methods; for a listed origin, a preflight that grants
    /// them with the headers a page sends (a key, a body's type, a range); for any other, nothing.
    func preflight(_ request: Request, route: ServedRoute) -> Response {
        var headers: HTTPFields = [.allow: route.allowed + ", OPTIONS"]
        if let origin = granted(request) {
            CrossOrigin.grant(origin, to: &headers)
            headers[.accessControlAllowMethods] = route.allowed
            headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Range, If-None-Match"
            headers[.accessControlMaxAge] = "600"
        }
        return Response(status: .noContent, headers: headers, body: ResponseBody())
    }
}

/// The headers that let a listed origin's page read an answer.
enum CrossOrigin {
    static func grant(_ origin: String, to headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = "Content-Length, Content-Range, Accept-Ranges, ETag, Medrender-Fit"
        headers[.vary] = "Origin"
    }
}
