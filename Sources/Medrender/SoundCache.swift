import Foundation
import MedrenderCore
import MedrenderIO

/// Sounds decoded and resampled once, with their loudness, and shared read-only by every render
/// that uses them (the renders of a build run side by side). A sound is known by the SHA-256 of
/// its bytes when the build has hashed it (so two files of the same bytes are decoded once), else
/// by its path, size and modification time; and by the rate. It holds at most `maximumBytes` of
/// decoded samples: past that, the sounds used least recently go first (a render that holds one
/// keeps its copy until it ends). The bound is unlimited by default (a build's renders share every
/// sound); a server sets one.
// `@unchecked`: the entries, their last uses, the clock and the bytes held are read and written
// under `lock` only; a sound is decoded outside it, by one caller while others wait on it.
public final class SoundCache: @unchecked Sendable {
    struct Key: Hashable {
        enum Identity: Hashable {
            case content(sha256: String)
            /// The size and modification time too, so a file changed during a build is read again.
            case file(path: String, FileIdentity)
        }
        var identity: Identity
        var rate: Int
        /// Held in 16 bits (a bed), or in floats.
        var held: Bool
    }

    private let lock = NSCondition()
    private var entries: [Key: (asset: DecodedSound, loudness: SoundLoudness)] = [:]
    /// When each entry was last used (a counter, larger is more recent).
    private var lastUse: [Key: UInt64] = [:]
    private var clock: UInt64 = 0
    private var heldBytes = 0
    /// The most bytes of decoded samples it keeps; `Int.max` keeps everything.
    public let maximumBytes: Int
    /// Sounds being loaded now: another render (or another sound of the same render) waits for
    /// one of these instead of decoding it again, and loads any other sound meanwhile.
    private var loading: Set<Key> = []
    private var contentHashes: [String: String] = [:]
    private var loads = 0

    public init(maximumBytes: Int = .max) { self.maximumBytes = max(0, maximumBytes) }

    /// Bytes of decoded samples it holds now (never more than `maximumBytes`).
    public var bytes: Int { lock.withLock { heldBytes } }

    static func size(of asset: DecodedSound) -> Int {
        switch asset {
        case .floats(let floats): floats.samples.count * MemoryLayout<Float>.stride
        case .held(let held): held.samples.count * MemoryLayout<Int16>.stride
        }
    }

    /// Keeps `key` as used now, and drops the least recently used entries while over the bound.
    /// Called with the lock held.
    private func touch(_ key: Key) {
        clock += 1
        lastUse[key] = clock
        while heldBytes > maximumBytes, let oldest = lastUse.min(by: { $0.value < $1.value })?.key {
            if let dropped = entries.removeValue(forKey: oldest) { heldBytes -= Self.size(of: dropped.asset) }
            lastUse[oldest] = nil
        }
    }

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

    /// The sound at `path` at `rate` (`held` in 16 bits, or in floats), loaded by `load` the first
    /// time it is asked for. Sounds of one render may load side by side; a sound is never decoded
    /// twice at once.
    func sound(at path: String, rate: Int, held: Bool,
               load: () throws -> (DecodedSound, SoundLoudness)) throws -> (asset: DecodedSound, loudness: SoundLoudness) {
        let standard = Self.standardized(path)
        let identity: Key.Identity
        if let hash = lock.withLock({ contentHashes[standard] }) {
            identity = .content(sha256: hash)
        } else {
            identity = .file(path: standard, FileIdentity(path: path))
        }
        let key = Key(identity: identity, rate: rate, held: held)
        lock.lock()
        while true {
            if let entry = entries[key] {
                touch(key)
                lock.unlock()
                return entry
            }
            guard loading.contains(key) else { break }
            lock.wait()
        }
        loading.insert(key)
        lock.unlock()
        // Loaded without the lock held; whoever waits for it is woken either way (after a
        // failure, one of them tries again and gives the error of its own).
        let loaded: (DecodedSound, SoundLoudness)
        do {
            loaded = try load()
        } catch {
            lock.withLock {
                loading.remove(key)
                lock.broadcast()
            }
            throw error
        }
        lock.withLock {
            loads += 1
            entries[key] = loaded
            heldBytes += Self.size(of: loaded.0)
            touch(key)
            loading.remove(key)
            lock.broadcast()
        }
        return loaded
    }
}

/// A sound as decoded at a render's rate: in floats, or (a bed's) in 16 bits at `Int16.heldStep`,
/// decoded straight into them.
enum DecodedSound: Sendable {
    case floats(AudioAsset)
    case held(QuantizedAsset)

    var frameCount: Int {
        switch self {
        case .floats(let asset): asset.frameCount
        case .held(let asset): asset.frameCount
        }
    }
}
