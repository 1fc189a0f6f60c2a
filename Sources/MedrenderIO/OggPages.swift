import Foundation

/// Reads and rewrites Ogg pages: the serial of every page (so libsndfile's Opus, which draws a
/// random serial, gives the same bytes every time) and the comment header of a Vorbis or Opus stream.
public enum OggPages {
    /// The Ogg CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0).
    static let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = (r & 0x8000_0000) != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for b in bytes { crc = (crc << 8) ^ crcTable[Int(((crc >> 24) & 0xFF) ^ UInt32(b))] }
        return crc
    }

    /// The byte ranges of the whole pages at the start of `data` (a page cut off by the end of
    /// `data` is left out); nil when `data` is not an Ogg stream.
    static func pageRanges(_ data: [UInt8]) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var offset = 0
        while offset < data.count {
            guard offset + 27 <= data.count else { break }
            guard data[offset..<(offset + 4)].elementsEqual("OggS".utf8) else { return ranges.isEmpty ? nil : ranges }
            let segments = Int(data[offset + 26])
            guard offset + 27 + segments <= data.count else { break }
            let body = data[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
            let end = offset + 27 + segments + body
            guard end <= data.count else { break }
            ranges.append(offset..<end)
            offset = end
        }
        return ranges.isEmpty ? nil : ranges
    }

    /// Sets the serial of every page in the file open at `descriptor`, numbers the pages in order
    /// (as they were, unless header pages were made again) and fixes each page's CRC, one page at
    /// a time (a page is at most 65,307 bytes).
    public static func rewriteSerial(descriptor: Int32, path: String, serial: UInt32) throws(IOError) {
        let size = lseek(descriptor, 0, SEEK_END)
        guard size >= 0 else { throw IOError.writeFailed(path: path, errno: errno) }
        guard size > 0 else { throw IOError(.library, "the Ogg stream written is empty", path: path) }
        var page = [UInt8](repeating: 0, count: 65_307)
        var offset: off_t = 0
        var sequence = 0
        func readPage(_ count: Int, at start: Int) throws(IOError) {
            let n = page.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + start, count, offset + off_t(start)) }
            guard n == count else { throw IOError(.library, "the Ogg stream written is not well formed", path: path) }
        }
        while offset < size {
            try readPage(27, at: 0)
            guard page[0..<4].elementsEqual("OggS".utf8) else {
                throw IOError(.library, "the Ogg stream written is not well formed", path: path)
            }
            let segments = Int(page[26])
            try readPage(segments, at: 27)
            let body = page[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
            try readPage(body, at: 27 + segments)
            let length = 27 + segments + body
            for k in 0..<4 { page[14 + k] = UInt8((serial >> (8 * UInt32(k))) & 0xFF) }
            for k in 0..<4 { page[18 + k] = UInt8((UInt32(truncatingIfNeeded: sequence) >> (8 * UInt32(k))) & 0xFF) }
            sequence += 1
            for k in 0..<4 { page[22 + k] = 0 }
            let sum = crc(page[0..<length])
            for k in 0..<4 { page[22 + k] = UInt8((sum >> (8 * UInt32(k))) & 0xFF) }
            let written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, length, offset) }
            guard written == length else { throw IOError.writeFailed(path: path, errno: errno) }
            offset += off_t(length)
        }
    }

    /// Whether the last Ogg page in `tail` (the end of a file) is flagged as the stream's end;
    /// nil when `tail` holds no page header.
    public static func lastPageEndsStream(_ tail: [UInt8]) -> Bool? {
        let capture = Array("OggS".utf8)
        var at = tail.count - 27
        while at >= 0 {
            if tail[at] == capture[0], tail[at + 1] == capture[1], tail[at + 2] == capture[2], tail[at + 3] == capture[3],
                tail[at + 4] == 0
            {
                return tail[at + 5] & 0x04 != 0
            }
            at -= 1
        }
        return nil
    }

    /// The comments (`KEY=value`) of the Vorbis or Opus stream in `data`, in order; nil when there are none.
    public static func comments(_ data: [UInt8]) -> [String]? {
        guard let pages = pageRanges(data) else { return nil }
        // Reassemble the second packet from the pages' segments.
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        for page in pages.prefix(16) {
            let s = page.lowerBound
            let count = Int(data[s + 26])
            var body = s + 27 + count
            for i in 0..<count {
                let length = Int(data[s + 27 + i])
                current += data[body..<(body + length)]
                body += length
                if length < 255 {
                    packets.append(current)
                    current = []
                    if packets.count == 2 { break }
                }
            }
            if packets.count == 2 { break }
        }
        guard packets.count == 2 else { return nil }
        let packet = packets[1]
        var offset: Int
        if packet.starts(with: [3] + Array("vorbis".utf8)) {
            offset = 7
        } else if packet.starts(with: Array("OpusTags".utf8)) {
            offset = 8
        } else {
            return nil
        }
        func u32() -> Int? {
            guard offset + 4 <= packet.count else { return nil }
            let v = Int(packet[offset]) | Int(packet[offset + 1]) << 8 | Int(packet[offset + 2]) << 16 | Int(packet[offset + 3]) << 24
            offset += 4
            return v
        }
        guard let vendorLength = u32(), offset + vendorLength <= packet.count else { return nil }
        offset += vendorLength
        guard let count = u32() else { return nil }
        var result: [String] = []
        for _ in 0..<count {
            guard let length = u32(), offset + length <= packet.count else { return nil }
            result.append(String(decoding: packet[offset..<(offset + length)], as: UTF8.self))
            offset += length
        }
        return result
    }
}

extension OggPages {
    /// Appends `comments` (`KEY`, value) to the OpusTags packet of the Ogg Opus file open at
    /// `descriptor` (libsndfile writes only its own tags): the header pages that hold the packet
    /// are made again and the audio pages after them move along. Their sequence numbers and CRCs
    /// are set by `rewriteSerial`, which must follow.
    public static func appendOpusComments(_ comments: [(String, String)], descriptor: Int32, path: String) throws(IOError) {
        guard !comments.isEmpty else { return }
        func malformed() -> IOError { IOError(.library, "the Ogg Opus stream written is not well formed", path: path) }
        let size = try FileSplice.size(descriptor: descriptor, path: path)
        // The header pages: OpusHead on the first, OpusTags on the pages after it, to the page
        // its packet ends on (the Opus header packets each end a page).
        var offset = 0
        var pageIndex = 0
        var tagsStart = 0
        var packet: [UInt8] = []
        var template: [UInt8] = []
        while true {
            guard offset + 27 <= size else { throw malformed() }
            let head = try FileSplice.read(offset..<(offset + 27), descriptor: descriptor, path: path)
            guard head[0..<4].elementsEqual("OggS".utf8) else { throw malformed() }
            let segments = Int(head[26])
            let lacing = try FileSplice.read((offset + 27)..<(offset + 27 + segments), descriptor: descriptor, path: path)
            let body = lacing.reduce(0) { $0 + Int($1) }
            let start = offset + 27 + segments
            guard start + body <= size else { throw malformed() }
            let next = start + body
            if pageIndex == 0 {
                tagsStart = next
            } else {
                if template.isEmpty { template = head }
                packet += try FileSplice.read(start..<next, descriptor: descriptor, path: path)
                if lacing.last.map({ $0 < 255 }) ?? false { offset = next; break }
            }
            offset = next
            pageIndex += 1
            guard pageIndex < 1000 else { throw malformed() }
        }
        guard packet.starts(with: Array("OpusTags".utf8)), packet.count >= 16 else { throw malformed() }
        // After the magic: vendor length and vendor, the comment count, the comments.
        let vendor = Int(FlacComments.le32(packet, 8))
        guard 16 + vendor <= packet.count else { throw malformed() }
        let count = Int(FlacComments.le32(packet, 12 + vendor))
        var end = 16 + vendor
        for _ in 0..<count {
            guard end + 4 <= packet.count else { throw malformed() }
            end += 4 + Int(FlacComments.le32(packet, end))
            guard end <= packet.count else { throw malformed() }
        }
        var added: [UInt8] = []
        for (key, value) in comments {
            let text = Array("\(key)=\(value)".utf8)
            added += FlacComments.bytes32(UInt32(text.count)) + text
        }
        packet.replaceSubrange((12 + vendor)..<(16 + vendor), with: FlacComments.bytes32(UInt32(count + comments.count)))
        packet.insert(contentsOf: added, at: end)
        // The packet in pages of at most 255 segments; the last segment is under 255 bytes.
        var pages: [UInt8] = []
        var at = 0
        var first = true
        repeat {
            var lacing: [UInt8] = []
            var bodyLength = 0
            while lacing.count < 255 {
                let piece = min(255, packet.count - at - bodyLength)
                lacing.append(UInt8(piece))
                bodyLength += piece
                if piece < 255 { break }
            }
            var header = template
            header[5] = first ? 0 : 0x01
            for k in 6..<14 { header[k] = 0 }
            for k in 22..<26 { header[k] = 0 }
            header[26] = UInt8(lacing.count)
            pages += header + lacing + packet[at..<(at + bodyLength)]
            at += bodyLength
            first = false
            if lacing.last! < 255 { break }
        } while true
        try FileSplice.replace(tagsStart..<offset, with: pages, descriptor: descriptor, path: path)
    }
}
