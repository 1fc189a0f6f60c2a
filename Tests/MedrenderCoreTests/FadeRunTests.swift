import Foundation
import MedrenderCore
import Testing

/// A fade's gains followed frame to frame give, to the bit, the Float of the curve's value at
/// each frame, whatever the curve, the fade's length, its direction and where a run starts.
@Suite struct FadeRunTests {
    /// Every frame of fades in and out, for every curve, at lengths from 1 frame to 3 s at 48 kHz
    /// (an odd one too), starting at the fade's edge and in its middle, on whole and half frames.
    @Test(arguments: FadeCurve.allCases)
    func everyFrameIsTheCurvesFloat(_ curve: FadeCurve) {
        for length: Int64 in [1, 2, 3, 129, 1000, 44_101, 144_000] {
            for offset in [0.0, 0.5] {
                for start in [Int64(0), length / 3] {
                    var fadeIn = FadeRun(curve, over: length, step: 1), fadeOut = FadeRun(curve, over: length, step: -1)
                    var mismatches = 0
                    for frame in start..<length {
                        let rising = Double(frame) + offset, falling = Double(length - frame) - offset
                        if fadeIn.value(at: rising) != Float(curve.value(at: rising / Double(length))) { mismatches += 1 }
                        if fadeOut.value(at: falling) != Float(curve.value(at: falling / Double(length))) { mismatches += 1 }
                    }
                    #expect(mismatches == 0, "\(curve) over \(length) from \(start) + \(offset)")
                }
            }
        }
    }

    /// A run asked for frames out of order (a numerator it does not stand at) starts afresh there.
    @Test func framesOutOfOrderAreWorkedOutAfresh() {
        var run = FadeRun(.quarterSine, over: 10_000, step: 1)
        for numerator in [5000.0, 5001, 20, 21, 22, 9999, 7000.5, 7001.5, 1, 0, 10_000, 12_000] {
            #expect(run.value(at: numerator) == Float(FadeCurve.quarterSine.value(at: numerator / 10_000)))
        }
    }
}
