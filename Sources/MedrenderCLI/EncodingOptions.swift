import ArgumentParser
import Medrender
import MedrenderCore
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
    func request(into p: SessionRequest) -> SessionRequest {
        var p = p
        p.bits = bits
        p.quality = quality
        p.channels = channels
        return p
    }

    /// Checks quality and channels, for a command that makes no `SessionRequest` (a build).
    func check() throws(ParameterError) {
        try RequestLimits.quality.check(quality)
        try RequestLimits.channels.check(channels)
    }
}
