import Foundation

/// A named point in a WAV file, shown by Audacity and Reaper as a marker.
public struct WaveMarker: Hashable, Sendable {
    public var frame: UInt32
    public var name: String
    public init(frame: UInt32, name: String) {
        self.frame = frame
        self.name = name
    }
}

/// Appends a `cue ` chunk and a `LIST/adtl` chunk of `labl`s to a finished WAV file, and fixes the
/// RIFF size, so editors show named markers.
public enum WaveMarkers {
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }

    /// The chunks for `markers`, each padded to an even length.
    static func chunks(_ markers: [WaveMarker]) -> [UInt8] {
        var cue: [UInt8] = le32(UInt32(markers.count))
        for (i, m) in markers.enumerated() {
            cue += le32(UInt32(i + 1)) + le32(m.frame) + Array("data".utf8) + le32(0) + le32(0) + le32(m.frame)
        }
        var adtl: [UInt8] = Array("adtl".utf8)
        for (i, m) in markers.enumerated() {
            var text = Array(m.name.utf8) + [0]
            let size = 4 + text.count
            if text.count % 2 == 1 { text.append(0) }
            adtl += Array("labl".utf8) + le32(UInt32(size)) + le32(UInt32(i + 1)) + text
        }
        return Array("cue ".utf8) + le32(UInt32(cue.count)) + cue + Array("LIST".utf8) + le32(UInt32(adtl.count)) + adtl
    }

    /// Appends the markers to the WAV file open at `descriptor`.
    public static func append(_ markers: [WaveMarker], descriptor: Int32, path: String) throws(IOError) {
        guard !markers.isEmpty else { return }
        var size = lseek(descriptor, 0, SEEK_END)
        guard size >= 12 else { throw IOError(.io, "is too short to be a WAV file", path: path) }
        var bytes: [UInt8] = size % 2 == 1 ? [0] : []
        bytes += chunks(markers)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, bytes.count, off_t(size)) }
        guard written == bytes.count else { throw IOError.writeFailed(path: path, errno: errno) }
        size += off_t(bytes.count)
        // An RF64 file keeps its RIFF size in its `ds64` chunk, 64 bits at byte 20.
        var magic = [UInt8](repeating: 0, count: 16)
        guard pread(descriptor, &magic, 16, 0) == 16 else { throw IOError(.io, "cannot be read back", path: path, cause: String(cString: strerror(errno))) }
        let isRF64 = Array(magic[0..<4]) == Array("RF64".utf8) && Array(magic[12..<16]) == Array("ds64".utf8)
        let riff = isRF64 ? (0..<8).map { UInt8((UInt64(size - 8) >> (8 * UInt64($0))) & 0xFF) } : le32(UInt32(size - 8))
        let w = riff.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, riff.count, isRF64 ? 20 : 4) }
        guard w == riff.count else { throw IOError.writeFailed(path: path, errno: errno) }
    }
}
