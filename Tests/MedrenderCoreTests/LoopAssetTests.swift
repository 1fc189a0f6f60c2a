import Foundation
import MedrenderCore
import Testing

/// A bed's loop held in 16 bits.
@Suite struct LoopAssetTests {
    /// A stereo loop of `frames` frames: a slow sine on the left, a faster one on the right.
    func loop(frames: Int) -> [Float] {
        (0..<(frames * 2)).map { i in
            let f = Double(i / 2)
            return Float(i % 2 == 0 ? 0.7 * sin(f * 0.001) : -0.3 * sin(f * 0.037))
        }
    }

    @Test func everySampleIsWithinHalfAStepOfItsPeaksScale() {
        let samples = loop(frames: 48_000)
        let asset = LoopAsset(channels: 2, quantizing: samples)
        let peak = samples.map { abs($0) }.max()!
        #expect(asset.scale == peak / 32767)
        let worst = zip(asset.floats, samples).map { abs($0 - $1) }.max()!
        // Half a step, and the rounding of a float near the peak (the scale's product).
        #expect(worst <= asset.scale / 2 + 2 * peak.ulp)
        #expect(asset.samples.map { abs(Int($0)) }.max() == 32767)
    }

    @Test(arguments: [1, 1000, 300_000, 1_000_003])
    func roundingAsTheFloatsGoGivesTheSameLoop(frames: Int) {
        // Long enough that pages of floats go back to the system on the way (a page is 1,024
        // floats, a step of rounding 262,144), and lengths that end mid-page.
        let samples = loop(frames: frames)
        var consumed = samples
        let asset = LoopAsset(channels: 2, consuming: &consumed)
        #expect(consumed.isEmpty)
        let reference = LoopAsset(channels: 2, quantizing: samples)
        #expect(asset.samples == reference.samples)
        #expect(asset.scale == reference.scale)
    }
}
