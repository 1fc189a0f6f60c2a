import Foundation

/// An advisory lock (flock(2)) on folders, held while a set of files is put in place or a manifest
/// is read and written: two processes (or two threads) writing into one folder take turns, so
/// neither sees half of the other's set.
public enum FolderLock {
    /// Runs `body` holding the lock of every folder in `folders` (taken in a fixed order, so two
    /// callers never wait on each other). A folder that cannot be opened is not locked: the writes
    /// into it will say why.
    public static func withLock<T>(on folders: [String], _ body: () throws -> T) throws -> T {
        var descriptors: [Int32] = []
        defer {
            for fd in descriptors {
                flock(fd, LOCK_UN)
                close(fd)
            }
        }
        for path in Set(folders.map(FilePaths.resolved)).sorted() {
            let fd = open(path, O_RDONLY | O_DIRECTORY)
            guard fd >= 0 else { continue }
            descriptors.append(fd)
            while flock(fd, LOCK_EX) != 0, errno == EINTR {}
        }
        return try body()
    }

    /// Whether `name` is one of AtomicOutputFile's temporary files (`.<name>.medrender-XXXXXX`).
    public static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let range = name.range(of: ".medrender-", options: .backwards) else { return false }
        return name[range.upperBound...].count == 6
    }
}
