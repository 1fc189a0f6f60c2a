import Foundation

/// Paths compared as places on disk.
public enum FilePaths {
    /// `path` made absolute, with `.`, `..` and symbolic links resolved: two paths naming the same
    /// file give the same string.
    public static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The size of a regular file, or nil when there is none at `path`.
    public static func regularFileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
