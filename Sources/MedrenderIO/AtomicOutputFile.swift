import Foundation
import MedrenderCore
import Synchronization

/// An output file that appears at its path complete or not at all.
///
/// Bytes go to a temporary file beside the target; `commit()` flushes it to disk and renames it
/// into place. Until then, a file already at the target is untouched, and if the render fails, is
/// interrupted (see `TemporaryFiles.removeAll()`) or this object is released uncommitted, the
/// temporary file is removed.
///
/// Not `Sendable`: one output file belongs to one thread.
public final class AtomicOutputFile {
    public let path: String
    public let temporaryPath: String
    /// The temporary file's descriptor, open for writing (and seeking).
    public let descriptor: Int32
    private var committed = false
    private var closed = false

    /// The longest file name most file systems take, in bytes.
    public static let maximumNameBytes = 255

    /// Creates the temporary file beside `path`.
    public init(path: String) throws(IOError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw IOError(.cannotCreate, "is a folder: name a file to write, in it or elsewhere", path: path)
        }
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw IOError(.cannotCreate, "cannot be written: the folder \(directory) does not exist (create it first)", path: path)
        }
        guard isDirectory.boolValue else {
            throw IOError(.cannotCreate, "cannot be written: \(directory) is a file, not a folder", path: path)
        }
        let name = url.lastPathComponent
        guard name.utf8.count <= Self.maximumNameBytes else {
            throw IOError(.cannotCreate, "has a file name of \(name.utf8.count) bytes; names are at most \(Self.maximumNameBytes): shorten it",
                          path: path)
        }
        // Renaming over a device or a pipe would replace it (as root, even /dev/null) with a file.
        var existing = stat()
        let exists = stat(path, &existing) == 0
        if exists, (existing.st_mode & S_IFMT) != S_IFREG {
            throw IOError(.cannotCreate, "is a device or a pipe, not a file; name a file to write", path: path)
        }
        // The temporary file is named after the target, unless that would make its name too long.
        let suffix = ".medrender-XXXXXX"
        let hidden = 1 + name.utf8.count + suffix.utf8.count <= Self.maximumNameBytes ? ".\(name)\(suffix)" : suffix
        var template = Array("\(directory)/\(hidden)".utf8CString)
        let (fd, code) = TemporaryFiles.create(&template)
        guard fd >= 0 else {
            let reason = String(cString: strerror(code))
            if code == ENAMETOOLONG {
                throw IOError(.cannotCreate, "is too long a path for this system: write it nearer the root", path: path, cause: reason)
            }
            throw IOError(.cannotCreate, "cannot be written in \(directory): check that the folder is writable", path: path, cause: reason)
        }
        self.path = path
        self.temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.descriptor = fd
        // A file replaced keeps its permissions.
        fchmod(fd, exists ? existing.st_mode & 0o7777 : 0o644)
    }

    deinit {
        if !committed {
            if !closed { close(descriptor) }
            unlink(temporaryPath)
            TemporaryFiles.unregister(temporaryPath)
        }
    }

    private func checkOpen() throws(IOError) {
        if closed { throw IOError(.io, "was already finished; nothing more can be written", path: path) }
    }

    /// Writes all of `bytes`, retrying short writes; a full disk or a size limit is an error.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
        try checkOpen()
        try StreamOutput.writeAll(bytes, to: descriptor, name: path)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(IOError) {
        try checkOpen()
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOError.writeFailed(path: path, errno: errno)
            }
            offset += n
        }
    }

    /// Flushes the file to disk, closes it and renames it into place.
    public func commit() throws(IOError) {
        try checkOpen()
        if fsync(descriptor) != 0 { throw IOError.writeFailed(path: path, errno: errno) }
        closed = true
        if close(descriptor) != 0 { throw IOError.writeFailed(path: path, errno: errno) }
        try TemporaryFiles.commit(temporaryPath, to: path)
        committed = true
    }
}

extension IOError {
    /// The error for a failed write, with advice for the common causes.
    static func writeFailed(path: String, errno code: Int32) -> IOError {
        let reason = String(cString: strerror(code))
        let advice: String
        switch code {
        case ENOSPC: advice = "the disk is full: free some space or write elsewhere"
        case EFBIG: advice = "the file is larger than allowed here (ulimit -f): raise the limit or render a shorter session"
        case EPIPE: advice = "the reader closed the pipe before the end"
        case EDQUOT: advice = "the disk quota is used up"
        default: advice = "writing failed"
        }
        return IOError(.io, advice, path: path, cause: reason)
    }
}

/// The temporary files being written, so an interrupt can remove them.
public enum TemporaryFiles {
    /// The files registered, and whether an interrupt has already removed them (then no new one
    /// is made: it would outlive the exit).
    private struct Registry {
        var list: [String] = []
        var exiting = false

        mutating func append(_ path: String) { list.append(path) }
        mutating func removeAll(where drop: (String) -> Bool) { list.removeAll(where: drop) }
    }

    private static let paths = Mutex(Registry())

    /// Makes a temporary file from a `mkstemp` template (filled in with its name) and registers
    /// it in one step, so that an interrupt either removes it or comes before it exists. Returns
    /// the open descriptor, or -1 and the `errno`.
    public static func create(_ template: inout [CChar]) -> (descriptor: Int32, errno: Int32) {
        paths.withLock { registry in
            if registry.exiting { return (-1, EINTR) }
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { return (-1, errno) }
            registry.append(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            return (fd, 0)
        }
    }

    /// Registers a temporary file: an interrupt removes it (`removeAllForExit`).
    public static func register(_ path: String) {
        paths.withLock { $0.append(path) }
    }

    /// Forgets a file registered with `register`: it is put in place or already removed.
    public static func unregister(_ path: String) {
        paths.withLock { $0.removeAll { $0 == path } }
    }

    /// Renames a temporary file into place, so that no interrupt can come between.
    static func commit(_ temporary: String, to path: String) throws(IOError) {
        let result: Int32 = paths.withLock { list in
            let code = rename(temporary, path)
            if code == 0 { list.removeAll { $0 == temporary } }
            return code == 0 ? 0 : errno
        }
        if result != 0 {
            unlink(temporary)
            throw IOError(.cannotCreate, "cannot be put in place", path: path, cause: String(cString: strerror(result)))
        }
    }

    /// Folders made for this run's outputs (`--stems`), deepest first, removed when still empty
    /// if the run is interrupted.
    private static let folders = Mutex<[String]>([])

    /// Registers folders made for the outputs, deepest first: an interrupt removes them (when
    /// empty) after the temporary files in them.
    public static func registerFolders(_ made: [String]) {
        folders.withLock { $0.append(contentsOf: made) }
    }

    /// Forgets folders registered with `registerFolders`: they are kept (or already removed).
    public static func unregisterFolders(_ made: [String]) {
        folders.withLock { list in list.removeAll { made.contains($0) } }
    }

    /// Removes every temporary file, then the folders made for them while empty, for a signal
    /// handler that exits right after. A commit that comes after it fails (its file is gone), and
    /// one before it has already put its file in place (and its folder stays).
    public static func removeAllForExit() {
        paths.withLock { registry in
            for path in registry.list { unlink(path) }
            registry.list.removeAll()
            registry.exiting = true
        }
        folders.withLock { list in
            for folder in list where rmdir(folder) != 0 { break }
            list.removeAll()
        }
    }
}
