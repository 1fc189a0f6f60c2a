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

    /// Sets the serial of every page in the file open at `descriptor` and fixes each page's CRC,
    /// one page at a time (a page is at most 65,307 bytes).
    public static func rewriteSerial(descriptor: Int32, path: String, serial: UInt32) throws(IOError) {
        let size = lseek(descriptor, 0, SEEK_END)
        guard size >= 0 else { throw IOError.writeFailed(path: path, errno: errno) }
        guard size > 0 else { throw IOError(.library, "the Ogg stream written is empty", path: path) }
        var page = [UInt8](repeating: 0, count: 65_307)
        var offset: off_t = 0
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
