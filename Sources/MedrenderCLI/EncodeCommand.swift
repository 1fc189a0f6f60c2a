import ArgumentParser
import Medrender

/// `medrender encode IN.wav OUT.ogg`: libvorbis alone over a finished mix (the benchmark's floor).
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode", abstract: "Encode a finished mix to OGG Vorbis, nothing else (for benchmarks).",
        shouldDisplay: false)

    @Argument var input: String
    @Argument var output: String
    @Option(name: .long) var quality: Double = 4

    func run() throws {
        do {
            try EncoderFloor.encodeVorbis(from: input, to: output, quality: quality)
        } catch {
            throw fail(error)
        }
    }
}
