import Foundation
import MedrenderCore
import MedrenderIO
import Testing

/// The loudness each colour is taken to have at unit gain (what sets a generated bed's gain for its
/// level) is what libebur128 measures, within 0.5 LU, at 44.1 and 48 kHz.
@Suite struct NoiseLoudnessTests {
    @Test(arguments: [44100, 48000], NoiseColour.allCases)
    func colourLoudnessIsMeasured(rate: Int, colour: NoiseColour) throws {
        let source = NoiseSource(colour: colour, rate: rate, channels: 2, seed: 3)
        let meter = try LoudnessMeter(channels: 2, rate: rate)
        var block = [Float](repeating: 0, count: 4096 * 2)
        var frame: Int64 = 0
        while frame < Int64(rate) * 30 {
            block.withUnsafeMutableBufferPointer { source.render(into: $0.baseAddress!, from: frame, frameCount: 4096) }
            try block.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frameCount: 4096) }
            frame += 4096
        }
        let measured = try meter.integratedLoudness()
        #expect(abs(measured - colour.loudnessLUFS) <= 0.5, "\(colour) at \(rate) Hz: \(measured) LUFS, not \(colour.loudnessLUFS)")
    }
}

/// The loudness each generated ambience is taken to have at unit gain is what libebur128
/// measures over 5 minutes at 16 kHz, within 2 LU (its own slow variation moves a window's
/// loudness about its long-term level), for two seeds.
@Suite struct GeneratedAmbienceLoudnessTests {
    @Test(arguments: AmbienceKind.allCases, [UInt64(3), 11])
    func ambienceLoudnessIsMeasured(kind: AmbienceKind, seed: UInt64) throws {
        let rate = 16000
        let source = AmbienceSource(kind: kind, rate: rate, channels: 2, seed: seed)
        let meter = try LoudnessMeter(channels: 2, rate: rate)
        var block = [Float](repeating: 0, count: 4000 * 2)
        var frame: Int64 = 0
        var peak: Float = 0
        while frame < Int64(rate) * 300 {
            block.withUnsafeMutableBufferPointer { source.render(into: $0.baseAddress!, from: frame, frameCount: 4000) }
            for x in block { peak = max(peak, abs(x)) }
            try block.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frameCount: 4000) }
            frame += 4000
        }
        let measured = try meter.integratedLoudness()
        #expect(abs(measured - kind.loudnessLUFS) <= 2, "\(kind): \(measured) LUFS")
    }
}
