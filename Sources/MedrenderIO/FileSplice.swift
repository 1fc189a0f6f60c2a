import Foundation

/// Replaces a byte range near the start of an open file with other bytes, moving what follows
/// along, a chunk at a time: how chapters are added to the header of a file libsndfile wrote.
public enum FileSplice {
    /// The bytes of `range` in the file open at `descriptor`.
    public static func read(_ range: Range<Int>, descriptor: Int32, path: String) throws(IOError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, range.count, off_t(range.lowerBound)) }
        guard n == range.count else { throw IOError(.library, "the file written is shorter than its header says", path: path) }
        return bytes
    }

    /// The file's size in bytes.
    public static func size(descriptor: Int32, path: String) throws(IOError) -> Int {
        let size = lseek(descriptor, 0, SEEK_END)
        guard size >= 0 else { throw IOError.writeFailed(path: path, errno: errno) }
        return Int(size)
    }

    /// Puts `bytes` in place of `range`; what follows the range moves by the difference in
    /// length (from the end when it grows, from the start when it shrinks), and the file is cut
    /// to its new length.
    public static func replace(_ range: Range<Int>, with bytes: [UInt8], descriptor: Int32, path: String) throws(IOError) {
        let size = try self.size(descriptor: descriptor, path: path)
        let delta = bytes.count - range.count
        let tail = range.upperBound..<size
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        func move(_ start: Int, _ count: Int) throws(IOError) {
            let n = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(start)) }
            guard n == count else { throw IOError.writeFailed(path: path, errno: errno) }
            let w = buffer.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, count, off_t(start + delta)) }
            guard w == count else { throw IOError.writeFailed(path: path, errno: errno) }
        }
        if delta > 0 {
            var end = tail.upperBound
            while end > tail.lowerBound {
                let start = max(tail.lowerBound, end - chunk)
                try move(start, end - start)
                end = start
            }
        } else if delta < 0 {
            var start = tail.lowerBound
            while start < tail.upperBound {
                let count = min(chunk, tail.upperBound - start)
                try move(start, count)
                start += count
            }
            guard ftruncate(descriptor, off_t(size + delta)) == 0 else { throw IOError.writeFailed(path: path, errno: errno) }
        }
        let w = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, bytes.count, off_t(range.lowerBound)) }
        guard w == bytes.count else { throw IOError.writeFailed(path: path, errno: errno) }
    }
}
