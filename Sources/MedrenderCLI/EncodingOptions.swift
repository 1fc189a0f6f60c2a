import ArgumentParser
import MedrenderIO

/// How the audio is encoded: shared by `render` and `build`.
struct EncodingOptions: ParsableArguments {
    @Option(name: .long, help: "Sample format for WAV and FLAC: 16, 24 or 32f (WAV only). 16-bit is dithered.")
    var bits: String?

    @Option(name: .long, parsing: .unconditional, help: "OGG Vorbis quality, -1 to 10 as oggenc (Opus and MP3 map it onto their own scale).")
    var quality: Double = 4

    @Option(name: .long, help: "Output channels: 1 or 2.")
    var channels: Int = 2

    /// The sample format `--bits` names, or nil when not given.
    func sampleFormat() throws -> SampleFormat? {
        guard let bits else { return nil }
        guard let format = SampleFormat(rawValue: bits) else {
            throw ValidationError("--bits \(bits) is not supported; use 16, 24 or 32f")
        }
        return format
    }

    func validate() throws {
        guard quality.isFinite, (-1...10).contains(quality) else {
            throw ValidationError("--quality \(quality) is out of range; use -1 to 10 (as oggenc)")
        }
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels \(channels): use 1 or 2") }
        _ = try sampleFormat()
    }
}
