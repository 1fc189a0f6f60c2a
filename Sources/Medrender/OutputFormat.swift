import MedrenderCore
import MedrenderIO

/// The file formats medrender writes, chosen by the output's extension or `--format`.
public enum OutputFormat: Hashable, Sendable, Codable {
    /// OGG Vorbis; quality as oggenc's `-q`, −1…10.
    case ogg(quality: Double)
    case wav(SampleFormat)
    /// FLAC, 16 or 24 bits.
    case flac(SampleFormat)
    /// Ogg Opus (libsndfile); quality −1…10, mapped onto libsndfile's 0…1.
    case opus(quality: Double)
    /// MP3 (libsndfile with LAME); quality −1…10, mapped onto libsndfile's 0…1.
    case mp3(quality: Double)

    public static let names = FormatName.allCases.map(\.rawValue)

    /// The format named `name` (an extension or a `--format` value), or nil.
    public static func named(_ name: String, quality: Double, bits: SampleFormat?) -> OutputFormat? {
        FormatName(spelled: name)?.format(quality: quality, bits: bits)
    }

    /// The format for `path`'s extension, or nil when medrender does not write it.
    public static func forPath(_ path: String, quality: Double, bits: SampleFormat?) -> OutputFormat? {
        guard path.contains(".") else { return nil }
        let ext = path.split(separator: ".").last.map(String.init) ?? ""
        return named(ext, quality: quality, bits: bits)
    }

    public var fileExtension: String {
        switch self {
        case .ogg: "ogg"
        case .wav: "wav"
        case .flac: "flac"
        case .opus: "opus"
        case .mp3: "mp3"
        }
    }

    /// The rates the format takes, or nil for any rate medrender renders.
    public var allowedRates: [Int]? {
        switch self {
        case .opus: [8000, 12000, 16000, 24000, 48000]
        case .mp3: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        default: nil
        }
    }

    /// The rate to render at for a requested rate: the nearest allowed rate at or above it, or
    /// the highest the format takes.
    public func rate(for requested: Int) -> Int {
        guard let rates = allowedRates else { return requested }
        return rates.first { $0 >= requested } ?? rates.last!
    }

    /// libsndfile's quality, 0…1, from oggenc's −1…10.
    var unitQuality: Double {
        switch self {
        case .opus(let q), .mp3(let q), .ogg(let q): max(0, min(1, (q + 1) / 11))
        default: 1
        }
    }
}
