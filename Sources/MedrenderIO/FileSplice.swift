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

    /// The Vorbis comments (`KEY=value`) of the FLAC file whose start is `head`, in order; nil
    /// when `head` is not FLAC or holds no whole VORBIS_COMMENT block.
    public static func comments(_ head: [UInt8]) -> [String]? {
        guard head.starts(with: Array("fLaC".utf8)) else { return nil }
        var offset = 4
        while offset + 4 <= head.count {
            let type = head[offset] & 0x7F, last = head[offset] & 0x80 != 0
            let length = Int(head[offset + 1]) << 16 | Int(head[offset + 2]) << 8 | Int(head[offset + 3])
            let body = (offset + 4)..<(offset + 4 + length)
            guard body.upperBound <= head.count else { return nil }
            if type == 4 {
                let block = Array(head[body])
                guard block.count >= 8 else { return nil }
                var at = 4 + Int(le32(block, 0))
                guard at + 4 <= block.count else { return nil }
                let count = Int(le32(block, at))
                at += 4
                var result: [String] = []
                for _ in 0..<count {
                    guard at + 4 <= block.count else { return nil }
                    let n = Int(le32(block, at))
                    guard at + 4 + n <= block.count else { return nil }
                    result.append(String(decoding: block[(at + 4)..<(at + 4 + n)], as: UTF8.self))
                    at += 4 + n
                }
                return result
            }
            if last { return nil }
            offset = body.upperBound
        }
        return nil
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    static func bytes32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
}

/// Adds chapters to an MP3 file's ID3v2 tag: a `CTOC` table of contents and a `CHAP` frame per
/// chapter (the ID3v2 Chapter Frame Addendum), each titled by a `TIT2` sub-frame, once the file is
/// complete (LAME, through libsndfile, writes the tag without them).
public enum ID3Chapters {
    /// A chapter: its start and end in milliseconds and its title.
    public struct Chapter: Sendable, Hashable {
        public var startMilliseconds: UInt32
        public var endMilliseconds: UInt32
        public var title: String
        public init(startMilliseconds: UInt32, endMilliseconds: UInt32, title: String) {
            self.startMilliseconds = startMilliseconds
            self.endMilliseconds = endMilliseconds
            self.title = title
        }
    }

    /// Adds `chapters` to the ID3v2 tag at the start of the MP3 file open at `descriptor` (a
    /// version 2.3 tag is made when there is none); the tag's padding, if any, is dropped.
    public static func insert(_ chapters: [Chapter], descriptor: Int32, path: String) throws(IOError) {
        guard !chapters.isEmpty else { return }
        let size = try FileSplice.size(descriptor: descriptor, path: path)
        var major: UInt8 = 3
        var flags: UInt8 = 0
        var replaced = 0..<0
        var frames: [UInt8] = []
        if size >= 10 {
            let header = try FileSplice.read(0..<10, descriptor: descriptor, path: path)
            // A tag that is unsynchronised or has a footer is left as it is, and a new one put first.
            if header[0..<3].elementsEqual("ID3".utf8), header[3] == 3 || header[3] == 4, header[5] & 0x90 == 0 {
                major = header[3]
                // The extended header, when there is one, stays at the start of the frames.
                flags = header[5] & 0x40
                let tagSize = Int(header[6]) << 21 | Int(header[7]) << 14 | Int(header[8]) << 7 | Int(header[9])
                guard 10 + tagSize <= size else { throw IOError(.library, "the MP3 file's ID3 tag is longer than the file", path: path) }
                let body = try FileSplice.read(10..<(10 + tagSize), descriptor: descriptor, path: path)
                // The frames up to the padding (the extended header, when flagged, comes first).
                var at = header[5] & 0x40 != 0 && body.count >= 4
                    ? (major == 4 ? syncsafe(body, 0) : 4 + Int(bigEndian(body, 0))) : 0
                while at + 10 <= body.count, body[at] != 0 {
                    let length = major == 4 ? syncsafe(body, at + 4) : Int(bigEndian(body, at + 4))
                    guard at + 10 + length <= body.count else { break }
                    at += 10 + length
                }
                frames = Array(body[0..<at])
                replaced = 0..<(10 + tagSize)
            }
        }
        let ids = chapters.indices.map { "chp\($0)" }
        // The table of contents: top-level and ordered (flags 0x03), listing every chapter.
        frames += frame("CTOC", major: major, body: latin1("toc") + [0x03, UInt8(min(255, ids.count))] + ids.prefix(255).flatMap(latin1))
        for (id, chapter) in zip(ids, chapters) {
            var body = latin1(id)
            for value in [chapter.startMilliseconds, chapter.endMilliseconds, UInt32.max, UInt32.max] { body += bytes32(value) }
            body += frame("TIT2", major: major, body: text(chapter.title))
            frames += frame("CHAP", major: major, body: body)
        }
        let n = frames.count
        guard n < 1 << 28 else { throw IOError(.library, "the MP3 chapters would pass the 256 MiB an ID3 tag holds", path: path) }
        let tag = Array("ID3".utf8) + [major, 0, flags, UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)]
            + frames
        try FileSplice.replace(replaced, with: tag, descriptor: descriptor, path: path)
    }

    /// The chapters (`CHAP` frames, with their `TIT2` titles) of the ID3v2 tag at the start of
    /// `head`, in the order of their start; empty when there are none.
    public static func chapters(_ head: [UInt8]) -> [Chapter] {
        guard head.count >= 10, head.starts(with: Array("ID3".utf8)), head[3] == 3 || head[3] == 4, head[5] & 0x80 == 0 else { return [] }
        let major = head[3]
        let end = min(head.count, 10 + syncsafe(head, 6))
        var result: [Chapter] = []
        func frames(_ range: Range<Int>, _ visit: (String, Range<Int>) -> Void) {
            var at = range.lowerBound
            while at + 10 <= range.upperBound, head[at] != 0 {
                let length = major == 4 ? syncsafe(head, at + 4) : Int(bigEndian(head, at + 4))
                guard at + 10 + length <= range.upperBound else { return }
                visit(String(decoding: head[at..<(at + 4)], as: UTF8.self), (at + 10)..<(at + 10 + length))
                at += 10 + length
            }
        }
        let extended = head[5] & 0x40 == 0 || end < 14 ? 0 : major == 4 ? syncsafe(head, 10) : 4 + Int(bigEndian(head, 10))
        frames(min(end, 10 + extended)..<end) { id, body in
            guard id == "CHAP", let zero = head[body].firstIndex(of: 0), zero + 17 <= body.upperBound else { return }
            var title = ""
            frames((zero + 17)..<body.upperBound) { sub, text in
                guard sub == "TIT2", !text.isEmpty else { return }
                let bytes = Array(head[(text.lowerBound + 1)..<text.upperBound])
                if head[text.lowerBound] == 1, bytes.count >= 2 {
                    let little = bytes[0] == 0xFF
                    let units = stride(from: 2, to: bytes.count - 1, by: 2).map {
                        little ? UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 : UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
                    }
                    title = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
                } else {
                    title = String(bytes.prefix { $0 != 0 }.map { Character(Unicode.Scalar($0)) })
                }
            }
            result.append(Chapter(startMilliseconds: bigEndian(head, zero + 1), endMilliseconds: bigEndian(head, zero + 5), title: title))
        }
        return result.sorted { $0.startMilliseconds < $1.startMilliseconds }
    }

    static func frame(_ id: String, major: UInt8, body: [UInt8]) -> [UInt8] {
        let n = body.count
        let size = major == 4 ? [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] : bytes32(UInt32(n))
        return Array(id.utf8) + size + [0, 0] + body
    }

    /// A null-terminated Latin-1 identifier.
    static func latin1(_ id: String) -> [UInt8] { Array(id.utf8) + [0] }

    /// A text frame's body: Latin-1 when the text fits it, else UTF-16 with a byte-order mark.
    static func text(_ value: String) -> [UInt8] {
        if value.unicodeScalars.allSatisfy({ $0.value < 256 }) { return [0] + value.unicodeScalars.map { UInt8($0.value) } }
        return [1, 0xFF, 0xFE] + value.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    static func bytes32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * (3 - $0)) & 0xFF) } }
    static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
    static func syncsafe(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 21 | Int(bytes[at + 1]) << 14 | Int(bytes[at + 2]) << 7 | Int(bytes[at + 3])
    }
}
