import Foundation

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
    /// version 2.3 tag is made when there is none), and puts `texts` (frame ID and value: `TIT2`,
    /// `TPE1`, `TALB`, `COMM`…) in place of the frames of those IDs, in UTF-16 where Latin-1 does
    /// not hold them (LAME writes Latin-1, a `?` for what it lacks); the tag's padding, if any, is
    /// dropped.
    /// A `picture` is added as an `APIC` frame (a front cover), after the chapters.
    public static func insert(_ chapters: [Chapter], texts: [(id: String, value: String)] = [], picture: CoverArt? = nil,
                              descriptor: Int32, path: String) throws(IOError) {
        guard !chapters.isEmpty || !texts.isEmpty || picture != nil else { return }
        let replacedIDs = Set(texts.map(\.id))
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
                frames = keptFrames(body, major: major, extendedHeader: header[5] & 0x40 != 0, leavingOut: replacedIDs)
                replaced = 0..<(10 + tagSize)
            }
        }
        for (id, value) in texts {
            // A comment: its encoding, language and an empty description before the text.
            if id == "COMM" {
                let encoded = text(value)
                let description: [UInt8] = encoded[0] == 0 ? [0] : [0xFF, 0xFE, 0, 0]
                frames += frame(id, major: major, body: [encoded[0]] + Array("eng".utf8) + description + encoded.dropFirst())
            } else {
                frames += frame(id, major: major, body: text(value))
            }
        }
        let ids = chapters.indices.map { "chp\($0)" }
        // The table of contents: top-level and ordered (flags 0x03), listing every chapter.
        if !chapters.isEmpty {
        frames += frame("CTOC", major: major, body: latin1("toc") + [0x03, UInt8(min(255, ids.count))] + ids.prefix(255).flatMap(latin1))
        for (id, chapter) in zip(ids, chapters) {
            var body = latin1(id)
            for value in [chapter.startMilliseconds, chapter.endMilliseconds, UInt32.max, UInt32.max] { body += bytes32(value) }
            body += frame("TIT2", major: major, body: text(chapter.title))
            frames += frame("CHAP", major: major, body: body)
        }
        }
        if let picture { frames += frame("APIC", major: major, body: picture.id3PictureFrameBody) }
        let n = frames.count
        guard n < 1 << 28 else { throw IOError(.library, "the MP3 chapters would pass the 256 MiB an ID3 tag holds", path: path) }
        let tag = Array("ID3".utf8) + [major, 0, flags, UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)]
            + frames
        try FileSplice.replace(replaced, with: tag, descriptor: descriptor, path: path)
    }

    /// The frames of an ID3v2.`major` tag's `body` up to the padding (the extended header, when
    /// there is one, first), less those whose IDs are in `replacedIDs` (given anew).
    static func keptFrames(_ body: [UInt8], major: UInt8, extendedHeader: Bool, leavingOut replacedIDs: Set<String>) -> [UInt8] {
        var at = extendedHeader && body.count >= 4
            ? (major == 4 ? syncsafe(body, 0) : 4 + Int(bigEndian(body, 0))) : 0
        var frames = Array(body[0..<at])
        while at + 10 <= body.count, body[at] != 0 {
            let length = major == 4 ? syncsafe(body, at + 4) : Int(bigEndian(body, at + 4))
            guard at + 10 + length <= body.count else { break }
            // A frame given anew in `texts` is left out here.
            if !replacedIDs.contains(String(decoding: body[at..<(at + 4)], as: UTF8.self)) {
                frames += body[at..<(at + 10 + length)]
            }
            at += 10 + length
        }
        return frames
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
