import Glibc

/// A file as a cache knows it without reading it: its size and the time of its last change, to
/// the nanosecond (following links). A file written again, even at the same size, is another.
public struct FileIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Bytes; −1 when the file cannot be read.
    public var size: Int64
    /// The last change, in nanoseconds since 1970; −1 when the file cannot be read.
    public var modified: Int64

    /// `SIZE MODIFIED`, as a cache key writes it.
    public var description: String { "\(size) \(modified)" }
}

extension FileIdentity {
    /// The identity of the file at `path`, or the unreadable one (−1, −1).
    public init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self.init(size: -1, modified: -1)
            return
        }
        self.init(size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
