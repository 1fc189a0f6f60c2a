import ArgumentParser
import Medrender
import MedrenderIO

/// How the audio is encoded: shared by `render` and `build`.
struct EncodingOptions: ParsableArguments {
    @Option(name: .long, help: "Sample format for WAV and FLAC: 16, 24 or 32f (WAV only). 16-bit is dithered.")
    var bits: SampleFormat?

    @Option(name: .long, parsing: .unconditional, help: "OGG Vorbis quality, -1 to 10 as oggenc (Opus and MP3 map it onto their own scale).")
    var quality: Double = 4

    @Option(name: .long, help: "Output channels: 1 or 2.")
    var channels: Int = 2

    /// `p` with the encoding options set.
    func parameters(into p: SessionParameters) -> SessionParameters {
        var p = p
        p.bits = bits
        p.quality = quality
        p.channels = channels
        return p
    }

    func validate() throws {
        try asValidation { try parameters(into: SessionParameters(preset: "")).validateEncoding() }
    }
}
