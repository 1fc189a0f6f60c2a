import Foundation

/// Paths compared as places on disk.
public enum FilePaths {
    /// `path` made absolute, with `.`, `..` and symbolic links resolved: two paths naming the same
    /// file give the same string.
    public static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
