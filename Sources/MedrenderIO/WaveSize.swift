import Foundation

/// Whether a WAV file is written as RIFF or as RF64 (EBU Tech 3306), and how long a WAV says it is.
///
/// RIFF's sizes are 32 bits: a file of 4 GiB or more cannot be RIFF. Such a file is written as
/// RF64, where a `ds64` chunk holds the 64-bit sizes and the 32-bit ones are `0xFFFFFFFF`; players
/// that read RF64 (ffmpeg, libsndfile, sox, Audacity, Reaper) play it as any WAV. A file below
/// that stays RIFF, byte for byte as before.
public enum WaveSize {
    /// Room kept under RIFF's 4 GiB for the header, the `INFO` tags and the markers: 1 MiB.
    public static let headerRoomBytes: Int64 = 1 << 20

    /// Whether audio of `dataBytes` bytes needs RF64: when it and the header's room reach
    /// RIFF's largest size, 2^32 − 1 bytes.
    public static func needsRF64(dataBytes: Int64) -> Bool {
        dataBytes + headerRoomBytes >= Int64(UInt32.max)
    }

    /// The bytes of `frameCount` frames of `channels` channels at `bytesPerSample`.
    public static func dataBytes(frameCount: Int64, channels: Int, bytesPerSample: Int) -> Int64 {
        frameCount * Int64(channels * bytesPerSample)
    }

    /// The whole file's length when its first bytes say it in advance: a RIFF header's size, or an
    /// RF64 header's `ds64` RIFF size (the head must hold its first 28 bytes); nil otherwise.
    public static func announcedLength(head: [UInt8]) -> Int64? {
        func le(_ offset: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 | UInt64(head[offset + $1]) << (8 * UInt64($1)) }
        }
        guard head.count >= 12, Array(head[8..<12]) == Array("WAVE".utf8) else { return nil }
        switch Array(head[0..<4]) {
        case Array("RIFF".utf8):
            let size = le(4, 4)
            guard size != 0, size != UInt64(UInt32.max) else { return nil }
            return Int64(size) + 8
        case Array("RF64".utf8):
            guard head.count >= 28, Array(head[12..<16]) == Array("ds64".utf8) else { return nil }
            let size = le(20, 8)
            guard size != 0, size < UInt64(Int64.max - 8) else { return nil }
            return Int64(size) + 8
        default:
            return nil
        }
    }
}
