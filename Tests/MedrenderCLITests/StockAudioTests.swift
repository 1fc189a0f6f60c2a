import Foundation
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// The stock library's sound, held still: every stock preset's cue, voice and bell layers, each
/// rendered alone (two minutes at 22.05 kHz, 32-bit float WAV), decode to the PCM whose SHA-256 is
/// recorded in `Tests/Fixtures/stock-audio.sha256`. A change to the code that is not meant to change
/// what is heard must leave these as they are; a change that is meant to is recorded again
/// (`MEDRENDER_RECORD_STOCK_AUDIO=1` with this suite writes the file) and says in its commit which
/// presets and layers changed and why.
@Suite struct StockAudioTests {
    static let fixture = PackagePaths.root + "/Tests/Fixtures/stock-audio.sha256"
    static let layers = ["cues", "voice", "bells"]
    static let presets = ((try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Presets")) ?? [])
        .sorted().filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }
    static let recording = ProcessInfo.processInfo.environment["MEDRENDER_RECORD_STOCK_AUDIO"] == "1"

    /// `preset layer` → the digest, as recorded.
    static func recorded() throws -> [String: String] {
        let text = try String(contentsOfFile: fixture, encoding: .utf8)
        var digests: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            if fields.count == 3 { digests["\(fields[0]) \(fields[1])"] = String(fields[2]) }
        }
        return digests
    }

    /// The SHA-256 of the samples as decoded (each Float's bits, little-endian), and how many.
    static func digest(preset: String, layer: String) throws -> (digest: String, samples: Int) {
        let dir = TemporaryDirectory("stock-audio")
        let out = dir.file("\(preset)-\(layer).wav")
        // The guided presets fall back to festival, as where Piper is not installed (see `pathWithoutPiper`).
        let result = try runProcess(PackagePaths.executable, ["--preset", preset, "--minutes", "2", "--rate", "22050", "--layers", layer,
                                                              "--bits", "32f", "-o", out],
                                    in: PackagePaths.root, environment: ["PATH": pathWithoutPiper])
        guard result.status == 0 else { throw TestSupportError("\(preset) \(layer): \(result.stderr)") }
        let (rate, _, samples) = try readSound(out)
        guard rate == 22050 else { throw TestSupportError("\(preset) \(layer): rendered at \(rate) Hz") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 4)
        for sample in samples { withUnsafeBytes(of: sample.bitPattern.littleEndian) { bytes += $0 } }
        return (SHA256Hasher.hash(bytes), samples.count)
    }

    @Test(.enabled(if: !recording, "recording"), arguments: presets)
    func theStockLayersDecodeAsRecorded(preset: String) throws {
        let digests = try Self.recorded()
        for layer in Self.layers {
            let expected = try #require(digests["\(preset) \(layer)"],
                                        "\(preset) \(layer) is not in the record; record it (MEDRENDER_RECORD_STOCK_AUDIO=1)")
            let (digest, samples) = try Self.digest(preset: preset, layer: layer)
            #expect(samples > 0)
            #expect(digest == expected, "\(preset)'s \(layer) layer decodes to other samples than recorded")
        }
    }

    @Test func everyStockPresetIsRecorded() throws {
        guard !Self.recording else { return }
        let recordedPresets = Set(try Self.recorded().keys.map { String($0.split(separator: " ")[0]) })
        #expect(recordedPresets == Set(Self.presets), "record the stock audio again (MEDRENDER_RECORD_STOCK_AUDIO=1)")
    }

    @Test(.enabled(if: recording, "only when recording"))
    func record() throws {
        var lines = ["# preset layer sha256 of the decoded samples: Tests/MedrenderCLITests/StockAudioTests.swift"]
        for preset in Self.presets {
            for layer in Self.layers { lines.append("\(preset) \(layer) \(try Self.digest(preset: preset, layer: layer).digest)") }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: Self.fixture, atomically: true, encoding: .utf8)
    }
}
