import Foundation
import MedrenderCore
import Testing

@Suite struct LoudnessGateTests {
    func measure(_ samples: [Float], channels: Int, rate: Int, block: Int = 4096) -> Double {
        let gate = LoudnessGate(channels: channels, rate: rate)
        samples.withUnsafeBufferPointer { p in
            var f = 0
            let frames = samples.count / channels
            while f < frames {
                let n = min(block, frames - f)
                gate.add(p.baseAddress! + f * channels, frameCount: n)
                f += n
            }
        }
        return gate.integratedLoudness
    }

    /// Two streams fed together, their filters side by side, end exactly as each fed alone:
    /// block for block, bit for bit, whatever the block sizes (hops split inside a call too).
    @Test(arguments: [(8000, 4096), (44100, 1000), (48000, 4801)])
    func twoGatesFedTogetherEqualEachFedAlone(rate: Int, block: Int) {
        let a = noiseAsset(seconds: 3, rate: rate, seed: 7, channels: 2).samples
        let b = noiseAsset(seconds: 3, rate: rate, seed: 8, channels: 2).samples.map { $0 * 0.3 }
        let aloneA = LoudnessGate(channels: 2, rate: rate), aloneB = LoudnessGate(channels: 2, rate: rate)
        let pairA = LoudnessGate(channels: 2, rate: rate), pairB = LoudnessGate(channels: 2, rate: rate)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                var f = 0
                while f < 3 * rate {
                    let n = min(block, 3 * rate - f)
                    aloneA.add(pa.baseAddress! + f * 2, frameCount: n)
                    aloneB.add(pb.baseAddress! + f * 2, frameCount: n)
                    LoudnessGate.add(pairA, pa.baseAddress! + f * 2, pairB, pb.baseAddress! + f * 2, frameCount: n)
                    f += n
                }
            }
        }
        #expect(aloneA.blocks.count == 27)
        #expect(pairA.blocks == aloneA.blocks)
        #expect(pairB.blocks == aloneB.blocks)
        #expect(pairA.blocks != pairB.blocks)
    }

    /// A binned gate (the checks of what a render wrote) reads what the exact one reads, to its
    /// 0.01-LU step, and keeps as many numbers for two minutes of audio as for twenty seconds.
    @Test(arguments: [(8000, 1), (48000, 2)])
    func aBinnedGateReadsWhatTheExactOneReadsInFixedMemory(rate: Int, channels: Int) {
        var g = SeededGenerator(seed: 5)
        func feed(seconds: Int, binned: Bool) -> LoudnessGate {
            let gate = LoudnessGate(channels: channels, rate: rate, withRange: true, binned: binned)
            var block = [Float](repeating: 0, count: 4000 * channels)
            var f = 0
            while f < seconds * rate {
                let n = min(4000, seconds * rate - f)
                for i in 0..<n {
                    // Noise whose level slides and steps over 30 dB, with near-silences.
                    let t = Double(f + i) / Double(rate)
                    let db = -30 * abs(sin(t / 7)) - (Int(t / 5) % 3 == 0 ? 12 : 0)
                    let amplitude = Float(0.3 * pow(10, db / 20))
                    for c in 0..<channels { block[i * channels + c] = (g.nextUnit() - 0.5) * amplitude }
                }
                block.withUnsafeBufferPointer { gate.add($0.baseAddress!, frameCount: n) }
                f += n
            }
            return gate
        }
        g = SeededGenerator(seed: 5)
        let exact = feed(seconds: 120, binned: false)
        g = SeededGenerator(seed: 5)
        let binned = feed(seconds: 120, binned: true)
        #expect(exact.loudnessRange > 5, "the material has a range to measure: \(exact.loudnessRange) LU")
        #expect(abs(binned.integratedLoudness - exact.integratedLoudness) <= 0.01,
                "binned \(binned.integratedLoudness) against \(exact.integratedLoudness) LUFS")
        #expect(abs(binned.loudnessRange - exact.loudnessRange) <= 0.02, "binned \(binned.loudnessRange) against \(exact.loudnessRange) LU")
        #expect(binned.blocks.isEmpty)
        let short = feed(seconds: 20, binned: true)
        #expect(short.heldValues == binned.heldValues)
        #expect(feed(seconds: 20, binned: false).heldValues < exact.heldValues)
    }

    @Test(arguments: [8000, 22050, 44100, 48000, 96000])
    func aSineAtATenthReadsMinusTwentyLUFS(rate: Int) {
        // A 997 Hz sine of amplitude 0.1 in both channels is −20 LUFS (within 0.1 LU: the
        // K-weighting is +0.69 dB near 1 kHz, which −0.691 cancels).
        let samples = (0..<(rate * 5)).flatMap { i -> [Float] in
            let x = Float(0.1 * sin(2 * Double.pi * 997 * Double(i) / Double(rate)))
            return [x, x]
        }
        #expect(abs(measure(samples, channels: 2, rate: rate) - (-20)) < 0.1)
        // Mono counts as dual mono.
        let mono = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        #expect(abs(measure(mono, channels: 1, rate: rate) - (-20)) < 0.1)
    }

    @Test func gatesLeaveOutSilenceAndQuietStretches() {
        let rate = 8000
        // 10 s of noise at one level, then 10 s of silence, then 10 s 30 dB quieter: the silence
        // falls under the absolute gate, the quiet part under the relative gate.
        var g = SeededGenerator(seed: 3)
        let loud = (0..<(rate * 10)).map { _ in (g.nextUnit() - 0.5) * 0.5 }
        let quiet = (0..<(rate * 10)).map { _ in (g.nextUnit() - 0.5) * 0.5 * 0.0316 }
        let alone = measure(loud, channels: 1, rate: rate)
        let all = measure(loud + [Float](repeating: 0, count: rate * 10) + quiet, channels: 1, rate: rate)
        // (The blocks that straddle the step from loud to silence still pass the gate: 0.1 LU.)
        #expect(abs(all - alone) < 0.1)
        #expect(measure([Float](repeating: 0, count: rate * 3), channels: 1, rate: rate) == -.infinity)
    }

    @Test func blockSizeDoesNotMatterAndPartsCombine() {
        let rate = 22050
        var g = SeededGenerator(seed: 4)
        let samples = (0..<(rate * 2 * 12)).map { i in (g.nextUnit() - 0.5) * Float(0.2 + 0.2 * sin(Double(i) / 40000)) }
        let whole = measure(samples, channels: 2, rate: rate)
        #expect(measure(samples, channels: 2, rate: rate, block: 1) == whole)
        #expect(measure(samples, channels: 2, rate: rate, block: 1000) == whole)
        let first = LoudnessGate(channels: 2, rate: rate), second = LoudnessGate(channels: 2, rate: rate)
        samples.withUnsafeBufferPointer { p in
            first.add(p.baseAddress!, frameCount: rate * 6)
            second.add(p.baseAddress! + rate * 6 * 2, frameCount: rate * 6)
        }
        // The parts lose only the blocks that straddle the cut: within 0.05 LU.
        #expect(abs(LoudnessGate.integratedLoudness(of: [first, second]) - whole) < 0.05)
    }
}
