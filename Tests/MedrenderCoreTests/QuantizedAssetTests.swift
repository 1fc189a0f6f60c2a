import Foundation
import MedrenderCore
import Testing

/// A sound held in 16 bits (a bed's loop, a clip, a cue's tone).
@Suite struct QuantizedAssetTests {
    /// A stereo loop of `frames` frames: a slow sine on the left, a faster one on the right.
    func loop(frames: Int) -> [Float] {
        (0..<(frames * 2)).map { i in
            let f = Double(i / 2)
            return Float(i % 2 == 0 ? 0.7 * sin(f * 0.001) : -0.3 * sin(f * 0.037))
        }
    }

    @Test func everySampleIsWithinHalfAStepOfItsPeaksScale() {
        let samples = loop(frames: 48_000)
        let asset = QuantizedAsset(channels: 2, quantizing: samples)
        let peak = samples.map { abs($0) }.max()!
        #expect(asset.scale == peak / 32767)
        // Half a step, and the rounding of a float near the peak (the scale's product): the
        // loop's first sample that is not silent is far over half a step, so rounds as any other.
        let worst = zip(asset.floats, samples).map { abs($0 - $1) }.max()!
        #expect(worst <= asset.scale / 2 + 2 * peak.ulp)
        #expect(asset.samples.map { abs(Int($0)) }.max() == 32767)
    }

    /// A sound that rises from far under a step (a cue's tone) starts on the same frame in 16
    /// bits: what is silent before it stays silent, and its first sample is one step, with its
    /// sign; the rest round to the nearest step. Both ways of rounding agree.
    @Test(arguments: [Float(1), -1])
    func aSoundStartsOnItsFrame(sign: Float) {
        var samples = [Float](repeating: 0, count: 11)
        samples += (1..<50).map { sign * Float($0 * $0) * 1e-9 }
        samples.append(0.5)
        let asset = QuantizedAsset(channels: 1, quantizing: samples)
        #expect(asset.samples[..<11].allSatisfy { $0 == 0 })
        #expect(asset.samples[11] == Int16(sign))
        #expect(asset.samples[12] == 0)
        var consumed = samples
        #expect(QuantizedAsset(channels: 1, consuming: &consumed).samples == asset.samples)
    }

    @Test(arguments: [1, 1000, 300_000, 1_000_003])
    func roundingAsTheFloatsGoGivesTheSameLoop(frames: Int) {
        // Long enough that pages of floats go back to the system on the way (a page is 1,024
        // floats, a step of rounding 262,144), and lengths that end mid-page.
        let samples = loop(frames: frames)
        var consumed = samples
        let asset = QuantizedAsset(channels: 2, consuming: &consumed)
        #expect(consumed.isEmpty)
        let reference = QuantizedAsset(channels: 2, quantizing: samples)
        #expect(asset.samples == reference.samples)
        #expect(asset.scale == reference.scale)
    }
}
