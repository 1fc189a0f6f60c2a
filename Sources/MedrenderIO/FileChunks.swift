import Foundation

/// Reads a file a megabyte at a time, for hashing, copying and streaming without holding it whole.
public enum FileChunks {
    static let chunkSize = 1 << 20

    /// Calls `body` with the bytes of the file open at `descriptor`, from its start (pread, so the
    /// descriptor's position is left alone); `path` names it in errors.
    public static func forEach(inDescriptor descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let n = pread(descriptor, buffer.baseAddress!, chunkSize, offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw IOError(.io, "could not be read", path: path, cause: String(cString: strerror(errno)))
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += off_t(n)
        }
    }

    /// Opens the regular file at `path` for reading. Anything else is refused without waiting: a
    /// pipe opened the usual way would wait for a writer for ever.
    static func openRegularFile(_ path: String) throws(IOError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw IOError(.missingInput, "cannot be read", path: path, cause: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw IOError(.missingInput, "is not a regular file (a pipe or a device?)", path: path)
        }
        return descriptor
    }

    /// Calls `body` with the bytes of the regular file at `path`.
    public static func forEach(inFileAt path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let descriptor = try openRegularFile(path)
        defer { close(descriptor) }
        try forEach(inDescriptor: descriptor, path: path, body)
    }

    /// The last `count` bytes of the regular file at `path` (all of it when it is shorter); nil
    /// when unreadable.
    public static func suffix(ofFileAt path: String, count: Int) -> [UInt8]? {
        guard let descriptor = try? openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let start = max(0, Int64(status.st_size) - Int64(count))
        var bytes = [UInt8](repeating: 0, count: Int(Int64(status.st_size) - start))
        let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, off_t(start)) }
        guard n >= 0 else { return nil }
        return Array(bytes.prefix(n))
    }

    /// The first `count` bytes of the regular file at `path` (fewer when it is shorter); nil when
    /// unreadable.
    public static func prefix(ofFileAt path: String, count: Int) -> [UInt8]? {
        guard let descriptor = try? openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, 0) }
        guard n >= 0 else { return nil }
        return Array(bytes.prefix(n))
    }
}
