import Foundation

/// One page of an Ogg stream, as a test walks the stream from its first byte (RFC 3533): written
/// here again rather than taken from the library, so a fault in the library's reading of pages
/// cannot hide the same fault in its writing.
struct OggPageWalk {
    /// The page's header-type flags (0x01 continued, 0x02 first page, 0x04 last page).
    var headerType: UInt8
    var granulePosition: Int64
    /// Whether the CRC in the page's header is the page's own.
    var checksumMatches: Bool

    /// Whether the page is flagged as the last of its stream.
    var endsStream: Bool { headerType & 0x04 != 0 }

    /// The pages of `bytes`, which must be whole pages end to end: nil when a page does not start
    /// where the one before ended, or the last one is cut off.
    static func pages(_ bytes: [UInt8]) -> [OggPageWalk]? {
        var pages: [OggPageWalk] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 27 <= bytes.count, bytes[offset..<(offset + 4)].elementsEqual("OggS".utf8) else { return nil }
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else { return nil }
            let length = 27 + segments + bytes[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
            guard offset + length <= bytes.count else { return nil }
            var granule: UInt64 = 0
            for k in (0..<8).reversed() { granule = granule << 8 | UInt64(bytes[offset + 6 + k]) }
            var stored: UInt32 = 0
            for k in (0..<4).reversed() { stored = stored << 8 | UInt32(bytes[offset + 22 + k]) }
            var page = Array(bytes[offset..<(offset + length)])
            for k in 22..<26 { page[k] = 0 }
            pages.append(OggPageWalk(headerType: bytes[offset + 5], granulePosition: Int64(bitPattern: granule),
                                     checksumMatches: crc(page) == stored))
            offset += length
        }
        return pages
    }

    /// The Ogg CRC-32: polynomial 0x04C11DB7, not reflected, initial value 0, no final xor.
    static let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for b in bytes { crc = (crc << 8) ^ crcTable[Int((crc >> 24) ^ UInt32(b))] }
        return crc
    }
}
