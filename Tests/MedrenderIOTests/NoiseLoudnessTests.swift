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

/// The loudness each generated ambience is taken to have at unit gain (what sets a generated bed's
/// gain for its level) is what libebur128 measures over 10 minutes, for three seeds, at rates that
/// are in its table and one between (where it is interpolated): within 1.5 LU for the rain, the
/// ocean and the stream (measured: within 1.2), so a generated bed plays near the level of the
/// loop it replaces; within 2 LU for the wind, whose gusts move ten minutes' loudness by ±1.5 LU
/// from one seed to another.
@Suite struct GeneratedAmbienceLoudnessTests {
    @Test(arguments: AmbienceKind.allCases, [(16000, UInt64(3)), (48000, 11), (12000, 5)])
    func ambienceLoudnessIsMeasured(kind: AmbienceKind, at: (rate: Int, seed: UInt64)) throws {
        let rate = at.rate
        let source = AmbienceSource(kind: kind, rate: rate, channels: 2, seed: at.seed)
        let meter = try LoudnessMeter(channels: 2, rate: rate)
        var block = [Float](repeating: 0, count: 4000 * 2)
        var frame: Int64 = 0
        while frame < Int64(rate) * 600 {
            block.withUnsafeMutableBufferPointer { source.render(into: $0.baseAddress!, from: frame, frameCount: 4000) }
            try block.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frameCount: 4000) }
            frame += 4000
        }
        let measured = try meter.integratedLoudness()
        #expect(abs(measured - kind.loudnessLUFS(atRate: rate)) <= (kind == .wind ? 2 : 1.5), "\(kind) at \(rate) Hz: \(measured) LUFS, not \(kind.loudnessLUFS(atRate: rate))")
    }
}
