import CSndFile
import Foundation
import MedrenderCore

/// The sample formats medrender writes through libsndfile.
public enum SampleFormat: String, Sendable, CaseIterable, Codable {
    case int16 = "16"
    case int24 = "24"
    case float32 = "32f"

    var libsndfile: Int32 {
        switch self {
        case .int16: Int32(SF_FORMAT_PCM_16)
        case .int24: Int32(SF_FORMAT_PCM_24)
        case .float32: Int32(SF_FORMAT_FLOAT)
        }
    }
}

/// Container formats written through libsndfile.
public enum SoundFileContainer: String, Sendable {
    case wav, flac, opus, mp3
    /// WAV with 64-bit sizes (EBU Tech 3306), for a file of 4 GiB or more (`WaveSize`).
    case rf64

    /// The container and codec bits; Opus and MP3 ignore the sample format.
    func libsndfile(_ sample: SampleFormat) -> Int32 {
        switch self {
        case .wav: Int32(SF_FORMAT_WAV) | sample.libsndfile
        case .rf64: Int32(SF_FORMAT_RF64) | sample.libsndfile
        case .flac: Int32(SF_FORMAT_FLAC) | sample.libsndfile
        case .opus: Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        case .mp3: Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        }
    }
}

/// Writes WAV (and FLAC) through libsndfile, onto an `AtomicOutputFile`'s descriptor.
///
/// The PEAK chunk is off (it carries a time stamp, and the same render must give the same bytes)
/// and clipping is on. Every write's count is checked.
///
/// Not `Sendable`: one writer belongs to one thread.
public final class SoundFileWriter {
    private let handle: OpaquePointer
    /// Held so its descriptor stays open for as long as libsndfile writes to it.
    private let file: AtomicOutputFile
    private let path: String
    public let channels: Int
    public let sampleFormat: SampleFormat
    private let container: SoundFileContainer
    private let rate: Int
    private let tags: [(Int32, String)]
    private var framesWritten = 0
    private var closed = false

    /// The corresponding C function is `sf_open_fd`.
    /// - Parameter quality: for Opus and MP3, 0 (smallest) … 1 (best).
    public init(file: AtomicOutputFile, container: SoundFileContainer, sampleFormat: SampleFormat, channels: Int,
                rate: Int, tags: [(Int32, String)] = [], quality: Double? = nil) throws(IOError) {
        var info = SF_INFO()
        info.samplerate = Int32(rate)
        info.channels = Int32(channels)
        info.format = container.libsndfile(sampleFormat)
        guard sf_format_check(&info) == 1 else {
            throw IOError(.cannotCreate, "cannot hold \(sampleFormat.rawValue)-bit audio at \(rate) Hz, \(channels) channels",
                          path: file.path)
        }
        guard let handle = sf_open_fd(file.descriptor, Int32(SFM_WRITE), &info, 0) else {
            throw IOError(.cannotCreate, "cannot be written", path: file.path, cause: String(cString: sf_strerror(nil)))
        }
        self.handle = handle
        self.file = file
        self.path = file.path
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.container = container
        self.rate = rate
        self.tags = tags
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        if var quality, container == .opus || container == .mp3 {
            sf_command(handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality, Int32(MemoryLayout<Double>.size))
        }
        for (kind, value) in tags where !value.isEmpty {
            // LAME writes MP3's ID3 text as Latin-1: UTF-8 bytes would show as mojibake.
            let bytes = container == .mp3 ? Self.latin1(value) : Array(value.utf8CString)
            if sf_set_string(handle, kind, bytes) != 0 {
                throw IOError(.cannotCreate, "cannot carry the tag '\(value)'", path: file.path, cause: String(cString: sf_strerror(handle)))
            }
        }
    }
    /// `text` as NUL-terminated Latin-1, the encoding of LAME's ID3 tags: typographic punctuation
    /// becomes its ASCII look-alike, and a character Latin-1 lacks becomes '?'.
    static func latin1(_ text: String) -> [CChar] {
        let lookalikes: [Character: String] = ["—": "-", "–": "-", "‘": "'", "’": "'", "“": "\"", "”": "\"", "…": "...", "•": "*"]
        var bytes: [CChar] = []
        for character in text {
            for scalar in (lookalikes[character] ?? String(character)).unicodeScalars {
                bytes.append(CChar(bitPattern: scalar.value < 256 ? UInt8(scalar.value) : UInt8(ascii: "?")))
            }
        }
        return bytes + [0]
    }


    deinit { if !closed { sf_close(handle) } }

    private func checkCount(_ written: sf_count_t, _ expected: Int) throws(IOError) {
        framesWritten += Int(max(0, written))
        if written != sf_count_t(expected) {
            let code = errno
            if [ENOSPC, EFBIG, EPIPE, EDQUOT].contains(code) { throw IOError.writeFailed(path: path, errno: code) }
            throw IOError(.io, "writing failed (is the disk full?)", path: path, cause: String(cString: sf_strerror(handle)))
        }
    }

    /// The corresponding C function is `sf_writef_float`.
    public func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        try checkCount(sf_writef_float(handle, frames, sf_count_t(frameCount)), frameCount)
    }

    /// The corresponding C function is `sf_writef_short`.
    public func write(_ frames: UnsafePointer<Int16>, frameCount: Int) throws(IOError) {
        try checkCount(sf_writef_short(handle, frames, sf_count_t(frameCount)), frameCount)
    }

    /// The corresponding C function is `sf_writef_int`.
    public func write(_ frames: UnsafePointer<Int32>, frameCount: Int) throws(IOError) {
        try checkCount(sf_writef_int(handle, frames, sf_count_t(frameCount)), frameCount)
    }

    /// Writes the header and closes. The corresponding C function is `sf_close`.
    public func finish() throws(IOError) {
        guard !closed else { return }
        closed = true
        sf_write_sync(handle)
        let code = sf_close(handle)
        if code != 0 {
            throw IOError(.io, "could not be finished (is the disk full?)", path: path, cause: "libsndfile error \(code)")
        }
        if container == .flac, framesWritten == 0 {
            try writeEmptyFLAC()
        }
    }

    /// libsndfile starts its FLAC encoder at the first write, so a FLAC of no frames would close as
    /// 0 bytes, which no reader takes. This writes the stream a FLAC encoder writes for no audio:
    /// the `fLaC` marker, STREAMINFO (no frames, no MD5) and the tags as a VORBIS_COMMENT block.
    private func writeEmptyFLAC() throws(IOError) {
        var status = stat()
        guard fstat(file.descriptor, &status) == 0, status.st_size == 0 else { return }
        let bytes = Self.emptyFLAC(rate: rate, channels: channels, bitsPerSample: sampleFormat == .int24 ? 24 : 16,
                                   tags: tags.compactMap { kind, value in Self.vorbisCommentName(kind).map { ($0, value) } })
        lseek(file.descriptor, 0, SEEK_SET)
        do {
            try bytes.withUnsafeBytes { try StreamOutput.writeAll($0, to: file.descriptor, name: path) }
        } catch let error as IOError {
            throw error
        } catch {
            throw IOError(.io, "could not be finished", path: path, cause: "\(error)")
        }
    }

    /// The bytes of a FLAC stream with no frames (FLAC format, sections "STREAMINFO" and
    /// "VORBIS_COMMENT"): block size 4096, frame sizes and MD5 unknown (0), total samples 0.
    static func emptyFLAC(rate: Int, channels: Int, bitsPerSample: Int, tags: [(String, String)]) -> [UInt8] {
        func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func littleEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var info = bigEndian(4096, 2) + bigEndian(4096, 2) + bigEndian(0, 3) + bigEndian(0, 3)
        info += bigEndian(UInt64(rate) << 44 | UInt64(channels - 1) << 41 | UInt64(bitsPerSample - 1) << 36, 8)
        info += [UInt8](repeating: 0, count: 16)
        let vendor = Array("medrender".utf8)
        var comment = littleEndian(vendor.count) + vendor + littleEndian(tags.count)
        for (name, value) in tags {
            let field = Array("\(name)=\(value)".utf8)
            comment += littleEndian(field.count) + field
        }
        return Array("fLaC".utf8) + [0x00] + bigEndian(UInt64(info.count), 3) + info
            + [0x84] + bigEndian(UInt64(comment.count), 3) + comment
    }

    /// The Vorbis comment field libsndfile writes for a tag kind.
    static func vorbisCommentName(_ kind: Int32) -> String? {
        switch kind {
        case Int32(SF_STR_TITLE): "TITLE"
        case Int32(SF_STR_ARTIST): "ARTIST"
        case Int32(SF_STR_ALBUM): "ALBUM"
        case Int32(SF_STR_COMMENT): "COMMENT"
        case Int32(SF_STR_DATE): "DATE"
        case Int32(SF_STR_GENRE): "GENRE"
        case Int32(SF_STR_COPYRIGHT): "COPYRIGHT"
        case Int32(SF_STR_SOFTWARE): "ENCODER"
        case Int32(SF_STR_TRACKNUMBER): "TRACKNUMBER"
        case Int32(SF_STR_LICENSE): "LICENSE"
        default: nil
        }
    }
}

/// libsndfile string kinds for tags.
public enum SoundFileTag {
    public static let title = Int32(SF_STR_TITLE)
    public static let artist = Int32(SF_STR_ARTIST)
    public static let album = Int32(SF_STR_ALBUM)
    public static let comment = Int32(SF_STR_COMMENT)
    public static let date = Int32(SF_STR_DATE)
    public static let software = Int32(SF_STR_SOFTWARE)
    public static let license = Int32(SF_STR_LICENSE)
    public static let copyright = Int32(SF_STR_COPYRIGHT)
}
