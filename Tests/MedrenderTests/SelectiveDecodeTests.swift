import Foundation
@testable import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Synchronization
import Testing

/// An OGG at 44.1 kHz and over is checked by decoding only the packets that can hold its peaks
/// (`SelectiveDecode`). Over every stock preset, at every rate and at three loudness targets
/// (quality 5; and at −1 and 10 on six presets),
/// each written OGG is decoded whole and selectively side by side (`RenderJob.decodeAudit`): the
/// two find the same true peak and the same sample peak, and where the check is selective the
/// loudness it gives (`RenderJob.decodedLoudness`) is within `DecodedCheck.selectiveLoudnessError`
/// of the loudness as decoded.
@Suite struct SelectiveDecodeTests {
    static let rates = [8000, 16000, 22050, 44100, 48000]
    static let targets = [-12.0, -16.0, -18.0]
    static let sounds = SoundCache()
    /// Each mix measured once (pass 1) for its three targets.
    static let measured = LoudnessCache()

    /// What one rate's renders found.
    struct Found {
        var mismatches: [String] = []
        /// The most the loudness as decoded was from what the selective check gives, LU, and from
        /// what went into the encoder.
        var loudnessGap = 0.0
        var encodedGap = 0.0
        /// The largest margin any render needed, dB, for the true peak and for the sample peak.
        var required = (truePeak: 0.0, samplePeak: 0.0)
        var packets = 0
        var decoded = 0
        var checks = 0
    }

    /// Where the renders' audits gather.
    final class Collector: Sendable { let found = Mutex(Found()) }

    static func render(_ preset: String, rate: Int, target: Double, quality: Double = 5, into collector: Collector,
                       dir: TemporaryDirectory) throws {
        let file = try library.presetPath(preset)
        var session = try PresetDecoder.load(path: file)
        session.master.loudnessLUFS = target
        let out = dir.file("\(preset)-\(rate)-\(Int(-target))-q\(Int(quality)).ogg")
        var request = RenderRequest(
            session: session, presetFile: file,
            options: RenderOptions(rate: rate, channels: 2, length: .duration(.seconds(26))),
            format: .ogg(quality: quality), destination: .file(out), library: library)
        request.threads = 1
        request.soundCache = sounds
        request.loudnessCache = measured
        var job = try request.job()
        let name = "\(preset) at \(rate) Hz, \(target) LUFS, q\(quality)"
        job.decodeAudit = { outcome, encodedLoudness in
            collector.found.withLock { found in
                found.checks += 1
                guard let whole = outcome.whole, let picked = outcome.selective, let required = outcome.required else {
                    found.mismatches.append("\(name): the check did not decode both ways")
                    return
                }
                if picked.peaks.true != whole.truePeak || picked.peaks.sample != whole.samplePeak {
                    found.mismatches.append("\(name): selective \(picked.peaks.true) dBTP, \(picked.peaks.sample); whole \(whole.truePeak) dBTP, "
                                            + "\(whole.samplePeak) (margin needed \(required))")
                }
                if whole.loudness.isFinite {
                    let estimate = RenderJob.decodedLoudness(encoded: encodedLoudness, picked)
                    found.loudnessGap = max(found.loudnessGap, abs(whole.loudness - estimate))
                    found.encodedGap = max(found.encodedGap, abs(whole.loudness - encodedLoudness))
                }
                found.required.truePeak = max(found.required.truePeak, required.truePeakDecibels)
                found.required.samplePeak = max(found.required.samplePeak, required.samplePeakDecibels)
                found.packets += picked.packets.of
                found.decoded += picked.packets.decoded
            }
        }
        // The guided presets fall back to festival, as where Piper is not installed (see `pathWithoutPiper`).
        _ = try SpeechSynthesizer.$searchPathOverride.withValue(pathWithoutPiper) { try job.run(to: request.destination) }
    }

    @Test(arguments: rates) func theSelectiveCheckFindsTheWholeDecodesPeaks(rate: Int) throws {
        let dir = TemporaryDirectory("selective-\(rate)")
        let collector = Collector()
        for preset in library.presetNames() {
            for target in Self.targets { try Self.render(preset, rate: rate, target: target, into: collector, dir: dir) }
        }
        let result = collector.found.withLock { $0 }
        #expect(result.checks >= library.presetNames().count * Self.targets.count)
        Self.expectAgreement(result, rate: rate)
        // The margin measured is under the one used, with room for what the library does not show
        // (what a render needs moves with its length: 2.05 dB at 8 kHz in 26-s renders, 1.2 in 30-s ones).
        let margin = DecodedCheck.selectionMarginDecibels
        #expect(max(result.required.truePeak, result.required.samplePeak) + 1 <= margin, "\(result.required)")
        // It decodes less than all.
        #expect(result.decoded < result.packets)
        print(String(format: "selective decode at %d Hz, q5: margin needed %.2f dB (true peak), %.2f dB (sample peak), used %.1f; decoded %d of %d packets (%.1f %%); loudness %.2f LU from the check's, %.2f from the encoder's",
                     rate, result.required.truePeak, result.required.samplePeak, margin, result.decoded, result.packets,
                     100 * Double(result.decoded) / Double(max(1, result.packets)), result.loudnessGap, result.encodedGap))
    }

    /// The two decodes found the same peaks in every render, and the selective check's loudness
    /// is the whole decode's within its bound where renders use it.
    static func expectAgreement(_ result: Found, rate: Int) {
        #expect(result.mismatches.isEmpty, "\(result.mismatches)")
        if DecodedCheck.decodesSelectively(.ogg(quality: 5), rate: rate) {
            #expect(result.loudnessGap <= DecodedCheck.selectiveLoudnessError, "\(result.loudnessGap) LU")
        }
    }

    /// The margin was measured at quality 5; it holds at the ends of the scale too (a build
    /// encodes at 4), at the rates where renders use it, on presets of every kind of sound (tones
    /// over rain, a voice over the ocean, beats over pink noise, a teacher's recording), at the
    /// loudest target.
    @Test(arguments: [-1.0, 10.0]) func theMarginHoldsAtEveryQuality(quality: Double) throws {
        let dir = TemporaryDirectory("selective-q\(Int(quality))")
        for rate in [44100, 48000] {
            let collector = Collector()
            for preset in ["box-breath", "body-scan", "focus-beats", "teacher-take", "sleep", "coherent-beats"] {
                try Self.render(preset, rate: rate, target: -12, quality: quality, into: collector, dir: dir)
            }
            let result = collector.found.withLock { $0 }
            #expect(result.checks >= 6)
            Self.expectAgreement(result, rate: rate)
            #expect(max(result.required.truePeak, result.required.samplePeak) + 1 <= DecodedCheck.selectionMarginDecibels,
                    "\(result.required)")
            print(String(format: "selective decode at %d Hz, q%.0f: margin needed %.2f dB (true peak), %.2f dB (sample peak); loudness %.2f LU from the check's",
                         rate, quality, result.required.truePeak, result.required.samplePeak, result.loudnessGap))
        }
    }
}
