import Foundation

/// Adds Vorbis comments to a FLAC file: libsndfile writes only its own tags there, so chapters
/// (`CHAPTER001=00:00:00.000`, `CHAPTER001NAME=Settle`) are added to the VORBIS_COMMENT block
/// once the file is complete.
public enum FlacComments {
    /// Appends `comments` (`KEY`, value) to the VORBIS_COMMENT block of the FLAC file open at
    /// `descriptor`, adding the block after STREAMINFO when there is none.
    /// - Parameter picture: a `PICTURE` block's body (`CoverArt.flacPictureBlock`) to add too.
    public static func append(_ comments: [(String, String)], picture: [UInt8]? = nil, descriptor: Int32, path: String) throws(IOError) {
        guard !comments.isEmpty || picture != nil else { return }
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
        if added.isEmpty {
            // Only a picture to add.
        } else if let index = blocks.firstIndex(where: { $0.type == 4 }) {
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
        if let picture { blocks.append((6, picture)) }
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
