import MedrenderCore
import MedrenderIO

/// The file formats medrender writes, chosen by the output's extension.
public enum OutputFormat: Hashable, Sendable {
    /// OGG Vorbis; quality as oggenc's `-q`, −1…10.
    case ogg(quality: Double)
    case wav(SampleFormat)
    case flac(SampleFormat)

    public static let extensions = ["ogg", "wav", "flac"]

    /// The format for `path`'s extension, or nil when medrender does not write it.
    public static func forPath(_ path: String, quality: Double, bits: SampleFormat?) -> OutputFormat? {
        let ext = path.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        switch ext {
        case "ogg", "oga": return .ogg(quality: quality)
        case "wav", "wave": return .wav(bits ?? .int16)
        case "flac": return .flac(bits ?? .int16)
        default: return nil
        }
    }
}
