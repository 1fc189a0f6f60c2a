import Foundation
import HTTPTypes
import Hummingbird
import MedrenderBuild
import Medrender
import MedrenderCore
import Synchronization

/// The keys a server bound beyond loopback asks for (`--api-keys FILE`): one per line, as the key
/// itself or as `sha256:HEX` of it (so the file need not hold the secret); blank lines and lines
/// starting with `#` are skipped. A key is known in logs and metrics only by its id: the first 8
/// hex digits of its SHA-256, never by itself.
struct APIKeys: Sendable {
    /// SHA-256 (hex) of each key.
    let hashes: Set<String>

    init(hashes: Set<String>) { self.hashes = hashes }

    /// Reads the key file; a missing, unreadable or empty one is an error that says which.
    static func load(path: String) throws -> APIKeys {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RenderError("{api-keys} \(path): cannot be read; give a file with one key per line", category: .missingInput)
        }
        var hashes: Set<String> = []
        // Lines end in LF or CRLF (a file written on Windows): a CRLF is one Character, so the
        // lines are split at any line end, never at "\n" alone, and no CR is part of a key.
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("sha256:") {
                let hex = line.dropFirst(7).lowercased()
                guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
                    throw RenderError("{api-keys} \(path), line \(number + 1): 'sha256:' takes 64 hex digits", category: .badData)
                }
                hashes.insert(hex)
            } else {
                guard line.count >= 16 else {
                    throw RenderError("{api-keys} \(path), line \(number + 1): a key has 16 characters or more; make it longer",
                                      category: .badData)
                }
                hashes.insert(SHA256Hasher.hash(line))
            }
        }
        guard !hashes.isEmpty else {
            throw RenderError("{api-keys} \(path): holds no key; give one key per line", category: .badData)
        }
        return APIKeys(hashes: hashes)
    }

    /// The id of a known key (its hash's first 8 hex digits), nil for any other.
    func id(of key: String) -> String? {
        let hash = SHA256Hasher.hash(key)
        return hashes.contains(hash) ? String(hash.prefix(8)) : nil
    }
}

/// Per client (a key's id, or an address when there are no keys): renders at once and renders
/// started in the last minute.
actor ClientLimits {
    let maximumAtOnce: Int
    let maximumPerMinute: Int
    private var running: [String: Int] = [:]
    private var started: [String: [ContinuousClock.Instant]] = [:]

    init(maximumAtOnce: Int, maximumPerMinute: Int) {
        self.maximumAtOnce = maximumAtOnce
        self.maximumPerMinute = maximumPerMinute
    }

    /// Takes a render for `client`; when over a limit, why and the seconds until it may ask again.
    func begin(_ client: String) -> (message: String, retryAfter: Int)? {
        let now = ContinuousClock.now
        var recent = (started[client] ?? []).filter { now - $0 < .seconds(60) }
        if maximumAtOnce > 0, running[client, default: 0] >= maximumAtOnce {
            return ("\(maximumAtOnce) renders at once is this client's limit; wait for one to end", 5)
        }
        if maximumPerMinute > 0, recent.count >= maximumPerMinute {
            let wait = 60 - Int((now - recent[0]).components.seconds)
            return ("\(maximumPerMinute) renders a minute is this client's limit; try again in \(max(1, wait)) s", max(1, wait))
        }
        recent.append(now)
        started[client] = recent
        if started.count > 4096 {
            // Addresses seen once and not since are forgotten, so the table stays small.
            started = started.filter { entry in running[entry.key] != nil || entry.value.contains { now - $0 < .seconds(60) } }
        }
        running[client, default: 0] += 1
        return nil
    }

    func end(_ client: String) {
        running[client, default: 1] -= 1
        if running[client] == 0 { running[client] = nil }
    }
}

/// What a request's key comes to: the id of a known key, or why it is refused (a 401's text).
enum KeyCheck: Equatable {
    case known(String)
    case refused(String)
}

extension MedrenderService {
    /// The key a request gives: `Authorization: Bearer KEY`; `?key=KEY` only when the server
    /// takes keys in the query (`--allow-query-key`), since a query is written in logs, histories
    /// and pages; and for `GET /render`, a grant a preview page was given (`?grant=`).
    func keyOf(_ request: Request) -> KeyCheck {
        let asked = "this server asks for a key: give 'Authorization: Bearer KEY'"
        guard let keys else { return .refused(asked) }
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            let key = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            return keys.id(of: key).map(KeyCheck.known) ?? .refused(asked)
        }
        let query = Self.query(request)
        if let key = query.first(where: { $0.0.lowercased() == "key" })?.1 {
            guard settings.allowQueryKey else {
                return .refused("this server takes its key in the header 'Authorization: Bearer KEY', not in the query "
                    + "(a query is kept in logs and histories)")
            }
            return keys.id(of: key).map(KeyCheck.known) ?? .refused(asked)
        }
        if request.uri.path == "/render", let grant = query.first(where: { $0.0 == "grant" })?.1,
           let id = grants.keyID(grant, query: Self.canonicalQuery(Self.options(request)))
        {
            return .known(id)
        }
        return .refused(asked)
    }
}

/// Leave to hear one render without a key, for a page's audio element, which cannot send a key's
/// header: the preview page of a keyed request is given one for its own `/render` query. A grant
/// is a random token, good for that query only, for `lifetime`; the newest `kept` are kept.
final class MediaGrants: Sendable {
    struct Grant {
        var keyID: String
        var query: String
        var expires: ContinuousClock.Instant
    }

    static let lifetime = Duration.seconds(6 * 3600)
    static let kept = 4096
    private let grants = Mutex<[String: Grant]>([:])

    /// A new grant of `query` (canonical, as `MedrenderService.canonicalQuery` writes it) to the key `keyID`.
    func grant(keyID: String, query: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        let token = bytes.map { String(format: "%02x", $0) }.joined()
        let now = ContinuousClock.now
        grants.withLock { grants in
            grants = grants.filter { $0.value.expires > now }
            if grants.count >= Self.kept, let oldest = grants.min(by: { $0.value.expires < $1.value.expires }) {
                grants[oldest.key] = nil
            }
            grants[token] = Grant(keyID: keyID, query: query, expires: now + Self.lifetime)
        }
        return token
    }

    /// The key id `token` was granted to, when it is good for `query`.
    func keyID(_ token: String, query: String) -> String? {
        grants.withLock { grants in
            guard let grant = grants[token], grant.query == query, grant.expires > ContinuousClock.now else { return nil }
            return grant.keyID
        }
    }
}
