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

/// Adds Vorbis comments to a FLAC file: libsndfile writes only its own tags there, so chapters
/// (`CHAPTER001=00:00:00.000`, `CHAPTER001NAME=Settle`) are added to the VORBIS_COMMENT block
/// once the file is complete.
public enum FlacComments {
    /// Appends `comments` (`KEY`, value) to the VORBIS_COMMENT block of the FLAC file open at
    /// `descriptor`, adding the block after STREAMINFO when there is none.
    public static func append(_ comments: [(String, String)], descriptor: Int32, path: String) throws(IOError) {
        guard !comments.isEmpty else { return }
        func malformed() -> IOError { IOError(.library, "the FLAC file written is not well formed", path: path) }
        guard try FileSplice.read(0..<4, descriptor: descriptor, path: path).elementsEqual("fLaC".utf8) else { throw malformed() }
        // The metadata blocks: (type, body), up to the one flagged last.
        var blocks: [(type: UInt8, body: [UInt8])] = []
        var offset = 4
        while true {
            let header = try FileSplice.read(offset..<(offset + 4), descriptor: descriptor, path: path)
            let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            blocks.append((header[0] & 0x7F, try FileSplice.read((offset + 4)..<(offset + 4 + length), descriptor: descriptor, path: path)))
            offset += 4 + length
            if header[0] & 0x80 != 0 { break }
            guard blocks.count < 1000 else { throw malformed() }
        }
        let added = comments.map { Array("\($0.0)=\($0.1)".utf8) }
        if let index = blocks.firstIndex(where: { $0.type == 4 }) {
            var body = blocks[index].body
            guard body.count >= 8 else { throw malformed() }
            let vendor = Int(le32(body, 0))
            guard 4 + vendor + 4 <= body.count else { throw malformed() }
            let count = le32(body, 4 + vendor)
            body.replaceSubrange((4 + vendor)..<(8 + vendor), with: bytes32(count + UInt32(added.count)))
            for comment in added { body += bytes32(UInt32(comment.count)) + comment }
            blocks[index].body = body
        } else {
            var body = bytes32(9) + Array("medrender".utf8) + bytes32(UInt32(added.count))
            for comment in added { body += bytes32(UInt32(comment.count)) + comment }
            blocks.insert((4, body), at: min(1, blocks.count))
        }
        var metadata: [UInt8] = []
        for (index, block) in blocks.enumerated() {
            guard block.body.count < 1 << 24 else {
                throw IOError(.library, "the FLAC comments would pass the 16 MiB a metadata block holds", path: path)
            }
            let last: UInt8 = index == blocks.count - 1 ? 0x80 : 0
            let n = block.body.count
            metadata += [last | block.type, UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + block.body
        }
        try FileSplice.replace(4..<offset, with: metadata, descriptor: descriptor, path: path)
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    static func bytes32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
}
