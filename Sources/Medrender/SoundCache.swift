import Foundation
import MedrenderCore

/// Sounds decoded and resampled once, with their loudness, and shared read-only by every render
/// that uses them (the renders of a build run side by side). A sound is known by the SHA-256 of
/// its bytes when the build has hashed it (so two files of the same bytes are decoded once), else
/// by its path, size and modification time; and by the rate.
public final class SoundCache: @unchecked Sendable {
    struct Key: Hashable {
        enum Identity: Hashable {
            case content(sha256: String)
            /// The size and modification time too, so a file changed during a build is read again.
            case file(path: String, size: Int64, modified: Double)
        }
        var identity: Identity
        var rate: Int
    }

    private let lock = NSLock()
    private var entries: [Key: (asset: AudioAsset, loudness: SoundLoudness)] = [:]
    private var contentHashes: [String: String] = [:]
    private var loads = 0

    public init() {}

    /// How many sounds it holds.
    public var count: Int { lock.withLock { entries.count } }

    /// How many times a sound was decoded.
    public var decodeCount: Int { lock.withLock { loads } }

    /// Records the SHA-256 of the sounds' bytes, by path.
    public func know(hashes: [String: String]) {
        lock.withLock {
            for (path, hash) in hashes { contentHashes[Self.standardized(path)] = hash }
        }
    }

    static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// The sound at `path` at `rate`, loaded by `load` the first time it is asked for.
    func sound(at path: String, rate: Int, load: () throws -> (AudioAsset, SoundLoudness)) throws -> (asset: AudioAsset, loudness: SoundLoudness) {
        let standard = Self.standardized(path)
        // Held while loading, so two renders never decode the same sound twice.
        lock.lock()
        defer { lock.unlock() }
        let identity: Key.Identity
        if let hash = contentHashes[standard] {
            identity = .content(sha256: hash)
        } else {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            identity = .file(path: standard, size: (attributes?[.size] as? NSNumber)?.int64Value ?? -1,
                             modified: (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1)
        }
        let key = Key(identity: identity, rate: rate)
        if let entry = entries[key] { return entry }
        let (asset, loudness) = try load()
        loads += 1
        entries[key] = (asset, loudness)
        return (asset, loudness)
    }
}
