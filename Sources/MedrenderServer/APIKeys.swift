import Foundation
import MedrenderBuild
import Medrender
import MedrenderCore

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
            throw RenderError("--api-keys \(path): cannot be read; give a file with one key per line", category: .missingInput)
        }
        var hashes: Set<String> = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("sha256:") {
                let hex = line.dropFirst(7).lowercased()
                guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
                    throw RenderError("--api-keys \(path), line \(number + 1): 'sha256:' takes 64 hex digits", category: .badData)
                }
                hashes.insert(hex)
            } else {
                guard line.count >= 16 else {
                    throw RenderError("--api-keys \(path), line \(number + 1): a key has 16 characters or more; make it longer",
                                      category: .badData)
                }
                hashes.insert(SHA256Hasher.hash(line))
            }
        }
        guard !hashes.isEmpty else {
            throw RenderError("--api-keys \(path): holds no key; give one key per line", category: .badData)
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
