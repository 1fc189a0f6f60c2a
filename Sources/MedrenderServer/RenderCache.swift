import Foundation
import Logging
import Medrender
import MedrenderIO
import Synchronization

/// Finished renders on disk, known by their identity (`RenderIdentity`), so that a repeat request,
/// and any range of it, is served from the file without rendering again. An entry is written
/// beside its place and renamed into it once complete and flushed, so a partial file is never an
/// entry; its name carries its length (`KEY.LENGTH.EXT`), so an entry cut short (a crash, a full
/// disk) is seen, removed and rendered again. The folder may be shared by several servers: a render
/// holds a lock on its key (`flock`), and another process that wants the same render waits for it
/// instead of rendering it twice. Bounded by size: the entries used least recently go first.
final class RenderCache: Sendable {
    struct Entry: Sendable {
        var path: String
        var length: Int64
    }

    let folder: String
    let maximumBytes: Int64
    /// Whether `reportUnwritable` has spoken.
    private let warned = Mutex(false)
    /// Room held for renders under way, by their temporary file: entries and these together stay
    /// within `maximumBytes`.
    private let reservations = Mutex<[String: Int64]>([:])
    private let logger: Logger

    /// Creates the folder when missing, readable by this user only (0700). A folder that another
    /// user owns, or that others may write in, is refused (`checkOwnership`): its entries would be
    /// served as ours. A folder that cannot be made is reported once by `reportUnwritable` and
    /// renders go on without it.
    init(folder: String, maximumBytes: Int64, logger: Logger) throws {
        self.folder = folder
        self.maximumBytes = max(0, maximumBytes)
        self.logger = logger
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        _ = mkdir(folder, 0o700)
        try Self.checkOwnership(folder)
        removeStaleTemporaries()
    }

    /// Refuses a cache folder (or the folder a link there leads to) that another user owns, or
    /// that its group or others may write in; a path that is no folder, or none at all, passes: it
    /// can hold no entry, and is reported when a render tries it.
    static func checkOwnership(_ folder: String) throws {
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        let fix = "give {cache-dir} a folder of your own, or remove it so that it is made again (mode 0700)"
        guard info.st_uid == geteuid() else {
            throw RenderError("the render cache \(folder) belongs to user \(info.st_uid), not to this one (\(geteuid())); its files "
                + "would be served as renders; \(fix)", category: .cannotCreate)
        }
        guard info.st_mode & 0o022 == 0 else {
            throw RenderError("the render cache \(folder) may be written by others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                + "chmod go-w it, or \(fix)", category: .cannotCreate)
        }
    }

    /// Logs, once per process, that the cache cannot take a file, and why.
    func reportUnwritable(_ reason: String) {
        let first = warned.withLock { warned in
            defer { warned = true }
            return !warned
        }
        if first {
            logger.error("the render cache \(folder) cannot take a file (\(reason)); renders are streamed without it until it can")
        }
    }

    /// Bytes free for this process in the folder, or nil when it cannot be asked.
    func freeBytes() -> Int64? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    private static func parse(_ name: String) -> (key: String, length: Int64, ext: String)? {
        let parts = name.split(separator: ".")
        guard parts.count == 3, !name.hasPrefix("."), let length = Int64(parts[1]) else { return nil }
        return (String(parts[0]), length, String(parts[2]))
    }

    private func names() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] }

    /// The complete entry for `key`, marked as used now; an entry whose length is not the one in
    /// its name is removed and nil returned.
    func entry(key: String, ext: String) -> Entry? {
        for name in names() where name.hasPrefix(key + ".") {
            guard let parsed = Self.parse(name), parsed.key == key, parsed.ext == ext else { continue }
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            guard Int64(info.st_size) == parsed.length else {
                unlink(path)
                logger.warning("removed the cache entry \(name): \(info.st_size) bytes where it should have \(parsed.length)")
                continue
            }
            // Used now: least recently used goes first, by modification time.
            utimes(path, nil)
            return Entry(path: path, length: parsed.length)
        }
        return nil
    }

    /// Where a render of `key` is written before it is complete.
    func temporaryPath(key: String, ext: String) -> String {
        "\(folder)/.partial-\(key)-\(getpid())-\(UUID().uuidString.prefix(8)).\(ext)"
    }

    /// Holds room for a render of up to `bytes` written into `temporary`: the entries used least
    /// recently are removed until the entries and every render under way fit the bound with it.
    /// False when it cannot fit at all (it is larger than the bound): such a render is streamed
    /// without the cache.
    func reserve(_ bytes: Int64, for temporary: String) -> Bool {
        guard bytes <= maximumBytes else { return false }
        reservations.withLock { $0[temporary] = bytes }
        trim()
        return true
    }

    /// Gives back the room held for `temporary` (its render failed, or it became an entry).
    func release(_ temporary: String) {
        _ = reservations.withLock { $0.removeValue(forKey: temporary) }
    }

    /// Puts a complete render in place as the entry of `key` and trims the cache to its bound.
    func commit(temporary: String, key: String, ext: String, length: Int64) throws -> Entry {
        let path = "\(folder)/\(key).\(length).\(ext)"
        defer { release(temporary) }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CacheError(description: "cannot put \(path) in place: \(reason)")
        }
        trim()
        return Entry(path: path, length: length)
    }

    /// Entries and their total size, as the metrics give them.
    func usage() -> (entries: Int, bytes: Int64) {
        var count = 0, total: Int64 = 0
        for name in names() {
            guard let parsed = Self.parse(name) else { continue }
            count += 1
            total += parsed.length
        }
        return (count, total)
    }

    /// Removes the entries used least recently until the rest, with the room held for renders
    /// under way, fit the bound.
    func trim() {
        var entries: [(path: String, length: Int64, used: Int)] = []
        var total: Int64 = reservations.withLock { $0.values.reduce(0, +) }
        for name in names() {
            guard let parsed = Self.parse(name) else { continue }
            var info = stat()
            let path = folder + "/" + name
            guard stat(path, &info) == 0 else { continue }
            entries.append((path, parsed.length, info.st_mtim.tv_sec))
            total += parsed.length
        }
        entries.sort { $0.used < $1.used }
        for entry in entries where total > maximumBytes {
            // A file being sent stays readable until it is closed.
            if unlink(entry.path) == 0 { total -= entry.length }
        }
    }

    /// This process's partial files, as it stops.
    func removeTemporaries(ofProcess pid: Int32) {
        for name in names() where name.hasPrefix(".partial-") {
            let fields = name.split(separator: "-")
            if fields.count >= 4, Int32(fields[2]) == pid { unlink(folder + "/" + name) }
        }
    }

    /// Partial files left by a process that ended mid-render (their process is gone).
    private func removeStaleTemporaries() {
        for name in names() where name.hasPrefix(".partial-") {
            let fields = name.split(separator: "-")
            guard fields.count >= 4, let pid = Int32(fields[2]) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + name) }
        }
    }

    /// Holds the lock of `key` (shared by every process using the folder) until `release` is
    /// called on what it returns; waits for it on a thread of its own, so no task is blocked.
    func lock(key: String) async -> KeyLock? {
        let path = "\(folder)/.lock-\(key)"
        return await BlockingWork.run("medrender cache lock") { () -> KeyLock? in
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return nil }
            while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
            return KeyLock(fd: fd, path: path)
        }
    }

    final class KeyLock: Sendable {
        let fd: Int32
        let path: String
        init(fd: Int32, path: String) { self.fd = fd; self.path = path }
        func release() {
            close(fd)
        }
    }
}

struct CacheError: Error, CustomStringConvertible {
    var description: String
}
