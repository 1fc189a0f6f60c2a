import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport

// Helpers shared by the MedrenderIO tests: signals, writing and reading fixtures, byte-level
// inspection of RIFF and Ogg files, and signal comparison.

// MARK: - Signals

/// Interleaved sines, one channel per frequency: channel c is `amplitude × sin(2π f_c n / rate + phase)`.
func sineWave(frames: Int, rate: Int, frequencies: [Double], amplitude: Double = 0.5, phase: Double = 0) -> [Float] {
    let channels = frequencies.count
    var samples = [Float](repeating: 0, count: frames * channels)
    for c in 0..<channels {
        let step = 2 * Double.pi * frequencies[c] / Double(rate)
        for n in 0..<frames {
            samples[n * channels + c] = Float(amplitude * sin(step * Double(n) + phase))
        }
    }
    return samples
}

/// A deterministic pseudo-random generator (SplitMix64), so fixtures are the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A value in [-1, 1).
    mutating func nextSample() -> Float {
        Float(Int32(truncatingIfNeeded: next() >> 32)) / 2_147_483_648
    }
}

/// `count` deterministic noise samples in [-1, 1], starting with the awkward values a converter
/// gets wrong most easily: both full-scale ends, zero, negative zero, a denormal.
func noiseSamples(count: Int, seed: UInt64 = 1) -> [Float] {
    let special: [Float] = [1, -1, 0, -0.0, 0.5, -0.5, Float.leastNonzeroMagnitude, 0.999_999, -0.999_999]
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { $0 < special.count ? special[$0] : generator.nextSample() }
}

/// One channel of interleaved samples.
func channel(_ samples: [Float], _ c: Int, of channels: Int) -> [Float] {
    stride(from: c, to: samples.count, by: channels).map { samples[$0] }
}

/// The normalized cross-correlation of `a` and `b` at lag 0 (1 = same shape, 0 = unrelated).
func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
    precondition(a.count == b.count, "correlating signals of different lengths")
    var ab = 0.0, aa = 0.0, bb = 0.0
    for (x, y) in zip(a, b) {
        ab += Double(x) * Double(y)
        aa += Double(x) * Double(x)
        bb += Double(y) * Double(y)
    }
    guard aa > 0, bb > 0 else { return 0 }
    return ab / (aa * bb).squareRoot()
}

func correlation(_ a: [Float], _ b: [Float]) -> Double { correlation(a[...], b[...]) }

/// Root mean square of a signal.
func rms(_ a: ArraySlice<Float>) -> Double {
    guard !a.isEmpty else { return 0 }
    return (a.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(a.count)).squareRoot()
}

func rms(_ a: [Float]) -> Double { rms(a[...]) }

/// Decibels of an amplitude ratio.
func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }

// MARK: - Files

/// Writes interleaved Float32 `samples` through `SoundFileWriter` onto an `AtomicOutputFile` and
/// commits it. Zero frames still go through `write` (with a count of 0).
func writeSoundFile(
    _ path: String, container: SoundFileContainer = .wav, format: SampleFormat, channels: Int, rate: Int,
    samples: [Float], tags: [(Int32, String)] = []
) throws {
    let file = try AtomicOutputFile(path: path)
    let writer = try SoundFileWriter(
        file: file, container: container, sampleFormat: format, channels: channels, rate: rate, tags: tags)
    let frames = samples.count / channels
    if frames == 0 {
        var dummy: Float = 0
        try writer.write(&dummy, frameCount: 0)
    } else {
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: frames) }
    }
    try writer.finish()
    try file.commit()
}

/// Encodes interleaved Float32 `samples` as Ogg Vorbis onto an `AtomicOutputFile` and commits it.
/// `pieces` cuts the input into writes of those sizes (cycled), to vary how the encoder is fed.
func writeVorbisFile(
    _ path: String, channels: Int, rate: Int, samples: [Float], quality: Double = 4,
    tags: [(String, String)] = [], pieces: [Int]? = nil
) throws {
    let file = try AtomicOutputFile(path: path)
    try encodeVorbis(into: file, channels: channels, rate: rate, samples: samples, quality: quality, tags: tags,
                     pieces: pieces)
    try file.commit()
}

/// Encodes interleaved Float32 `samples` as Ogg Vorbis into any `ByteSink`.
func encodeVorbis(
    into sink: ByteSink, channels: Int, rate: Int, samples: [Float], quality: Double = 4,
    tags: [(String, String)] = [], pieces: [Int]? = nil
) throws {
    let encoder = try VorbisEncoder(sink: sink, channels: channels, rate: rate, quality: quality, tags: tags)
    let frames = samples.count / channels
    try samples.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        let sizes = pieces ?? [frames]
        var done = 0, i = 0
        while done < frames {
            let n = min(sizes[i % sizes.count], frames - done)
            try encoder.write(base + done * channels, frameCount: n)
            done += n
            i += 1
        }
    }
    try encoder.finish()
}

/// The whole content of a file.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Replaces a file's content.
func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Whether `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard !n.isEmpty, haystack.count >= n.count else { return false }
    for start in 0...(haystack.count - n.count) where haystack[start] == n[0] {
        if Array(haystack[start..<(start + n.count)]) == n { return true }
    }
    return false
}

func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
}

func littleEndian64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
    (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}

/// The chunk identifiers of a RIFF/WAVE file, in order (e.g. `["fmt ", "fact", "data"]`), or nil
/// when the file is not RIFF/WAVE.
func riffChunkIDs(_ bytes: [UInt8]) -> [String]? {
    guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
          String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" else { return nil }
    var ids: [String] = []
    var offset = 12
    while offset + 8 <= bytes.count {
        ids.append(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
        let size = Int(littleEndian32(bytes, at: offset + 4))
        offset += 8 + size + (size & 1)
    }
    return ids
}

/// One Ogg page's header fields.
struct OggPage {
    var headerType: UInt8
    var granulePosition: Int64
    var serial: UInt32
    var sequence: UInt32
    var isLast: Bool { headerType & 0x04 != 0 }
}

/// The pages of an Ogg file, or nil when the bytes do not split into whole pages exactly.
func oggPages(_ bytes: [UInt8]) -> [OggPage]? {
    var pages: [OggPage] = []
    var offset = 0
    while offset < bytes.count {
        guard offset + 27 <= bytes.count, String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self) == "OggS"
        else { return nil }
        let segments = Int(bytes[offset + 26])
        guard offset + 27 + segments <= bytes.count else { return nil }
        let bodyLength = bytes[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
        pages.append(OggPage(
            headerType: bytes[offset + 5],
            granulePosition: Int64(bitPattern: littleEndian64(bytes, at: offset + 6)),
            serial: littleEndian32(bytes, at: offset + 14),
            sequence: littleEndian32(bytes, at: offset + 18)))
        offset += 27 + segments + bodyLength
    }
    return offset == bytes.count ? pages : nil
}

/// A minimal 16-bit PCM WAV file, for headers `SoundFileWriter` would never write.
func handMadeWAV(rate: UInt32, channels: UInt16, frames: Int) -> [UInt8] {
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    func le16(_ v: UInt16) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    let blockAlign = UInt16(channels) * 2
    let dataSize = UInt32(frames) * UInt32(blockAlign)
    var bytes: [UInt8] = Array("RIFF".utf8) + le32(36 + dataSize) + Array("WAVE".utf8)
    bytes += Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(rate)
    bytes += le32(rate * UInt32(blockAlign)) + le16(blockAlign) + le16(16)
    bytes += Array("data".utf8) + le32(dataSize) + [UInt8](repeating: 0, count: Int(dataSize))
    return bytes
}

/// libsndfile's major format codes, as `SoundFileReader.format` reports them.
enum LibsndfileFormat {
    static let wav: Int32 = 0x01_0000
    static let flac: Int32 = 0x17_0000
    static let ogg: Int32 = 0x20_0000
}

/// Files in a directory that look like `AtomicOutputFile` temporaries (`.NAME.medrender-XXXXXX`).
func temporaryLeftovers(in directory: TemporaryDirectory) -> [String] {
    directory.contents().filter { $0.hasPrefix(".") && $0.contains(".medrender-") }
}
