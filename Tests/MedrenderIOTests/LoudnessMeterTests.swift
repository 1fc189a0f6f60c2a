import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// Measures `samples` (interleaved) and returns the meter.
private func measure(_ samples: [Float], channels: Int, rate: Int, withTruePeak: Bool = false, withRange: Bool = false,
                     pieces: Int? = nil) throws -> LoudnessMeter {
    let meter = try LoudnessMeter(channels: channels, rate: rate, withTruePeak: withTruePeak, withRange: withRange)
    let frames = samples.count / channels
    try samples.withUnsafeBufferPointer { buffer in
        let step = pieces ?? max(frames, 1)
        var done = 0
        while done < frames {
            let n = min(step, frames - done)
            try meter.add(buffer.baseAddress! + done * channels, frameCount: n)
            done += n
        }
    }
    return meter
}

@Suite("LoudnessMeter")
struct LoudnessMeterTests {
    @Test("a 997 Hz stereo sine at amplitude 0.1 measures −20 LUFS", arguments: [44100, 48000])
    func stereoSine(rate: Int) throws {
        let samples = sineWave(frames: 3 * rate, rate: rate, frequencies: [997, 997], amplitude: 0.1)
        let loudness = try measure(samples, channels: 2, rate: rate).integratedLoudness()
        // Tolerance: 0.3 LU (EBU Tech 3341: −20 dBFS 997 Hz on both channels is −20 LUFS ± 0.1).
        #expect(abs(loudness - -20) < 0.3, "\(loudness) LUFS")
    }

    @Test("a mono meter weighs its channel as dual mono", arguments: [44100, 48000])
    func dualMono(rate: Int) throws {
        let samples = sineWave(frames: 3 * rate, rate: rate, frequencies: [997], amplitude: 0.1)
        let loudness = try measure(samples, channels: 1, rate: rate).integratedLoudness()
        // Tolerance: 0.3 LU; as a single channel it would read −23 LUFS.
        #expect(abs(loudness - -20) < 0.3, "\(loudness) LUFS")
    }

    @Test("one stereo channel alone is 3 dB quieter than both")
    func oneChannel() throws {
        let samples = sineWave(frames: 3 * 48000, rate: 48000, frequencies: [997, 997], amplitude: 0.1)
            .enumerated().map { $0.offset % 2 == 0 ? $0.element : 0 }
        let loudness = try measure(samples, channels: 2, rate: 48000).integratedLoudness()
        // Tolerance: 0.3 LU around −23.01 LUFS.
        #expect(abs(loudness - -23.01) < 0.3, "\(loudness) LUFS")
    }

    @Test("silence measures −∞", arguments: [1, 2])
    func silence(channels: Int) throws {
        let samples = [Float](repeating: 0, count: 2 * 48000 * channels)
        let meter = try measure(samples, channels: channels, rate: 48000)
        let loudness = try meter.integratedLoudness()
        #expect(!loudness.isFinite)
        #expect(loudness < 0)
        #expect(try meter.samplePeak() == 0)
    }

    @Test("nothing measured at all is −∞ too")
    func nothing() throws {
        let loudness = try LoudnessMeter(channels: 2, rate: 48000).integratedLoudness()
        #expect(loudness == -.infinity)
    }

    @Test("the sample peak is the largest absolute sample, over every channel")
    func samplePeak() throws {
        var samples = sineWave(frames: 48000, rate: 48000, frequencies: [997, 997], amplitude: 0.1)
        samples[2 * 1234 + 1] = -0.3  // a click on the right
        let meter = try measure(samples, channels: 2, rate: 48000)
        // Tolerance: exact up to the conversion of one Float to Double.
        #expect(abs(try meter.samplePeak() - 0.3) < 1e-7)

        let plain = sineWave(frames: 48000, rate: 48000, frequencies: [997], amplitude: 0.1)
        let expected = Double(plain.map(abs).max()!)
        let monoPeak = try measure(plain, channels: 1, rate: 48000).samplePeak()
        #expect(abs(monoPeak - expected) < 1e-9)
        // Tolerance: a 997 Hz sine at 48 kHz has a sample within 0.1 % of its crest.
        #expect(abs(monoPeak - 0.1) < 1e-4)
    }

    @Test("the true peak is at least the sample peak, and finds the crest between samples")
    func truePeak() throws {
        // 997 Hz: samples reach the crest, true peak ≈ sample peak.
        let sine = sineWave(frames: 48000, rate: 48000, frequencies: [997, 997], amplitude: 0.1)
        let meter = try measure(sine, channels: 2, rate: 48000, withTruePeak: true)
        let sample = try meter.samplePeak(), truePeak = try meter.truePeak()
        #expect(truePeak >= sample)
        // Tolerance: within 0.5 dB of the amplitude.
        #expect(abs(decibels(truePeak / 0.1)) < 0.5, "true peak \(truePeak)")

        // fs/4 with a 45° phase: every sample is at ±0.707 of the crest, the true peak is the crest.
        let between = sineWave(frames: 48000, rate: 48000, frequencies: [12000], amplitude: 0.5, phase: .pi / 4)
        let meter2 = try measure(between, channels: 1, rate: 48000, withTruePeak: true)
        let sample2 = try meter2.samplePeak(), true2 = try meter2.truePeak()
        // Tolerance: the samples sit 3 dB below the crest; the true peak must find at least 2 dB of it.
        #expect(abs(sample2 - 0.5 / 2.0.squareRoot()) < 1e-6)
        #expect(decibels(true2 / sample2) > 2, "sample \(sample2), true \(true2)")
    }

    @Test("the true peak needs withTruePeak, the range needs withRange")
    func modesRequired() throws {
        let meter = try measure(sineWave(frames: 4800, rate: 48000, frequencies: [440]), channels: 1, rate: 48000)
        let peakError = #expect(throws: IOError.self) { _ = try meter.truePeak() }
        #expect(peakError?.kind == .library)
        let rangeError = #expect(throws: IOError.self) { _ = try meter.loudnessRange() }
        #expect(rangeError?.kind == .library)
    }

    @Test("loudness range: a steady tone has none, two levels 10 dB apart have about 10 LU")
    func loudnessRange() throws {
        let rate = 16000
        let steady = sineWave(frames: 20 * rate, rate: rate, frequencies: [997], amplitude: 0.1)
        let steadyRange = try measure(steady, channels: 1, rate: rate, withRange: true).loudnessRange()
        // Tolerance: under 0.5 LU for a constant tone.
        #expect(steadyRange < 0.5, "\(steadyRange) LU")

        let loud = sineWave(frames: 10 * rate, rate: rate, frequencies: [997], amplitude: 0.1)
        let quiet = loud.map { $0 * Float(pow(10, -10.0 / 20)) }
        let range = try measure(loud + quiet, channels: 1, rate: rate, withRange: true).loudnessRange()
        // Tolerance: 1 LU around 10.
        #expect(abs(range - 10) < 1, "\(range) LU")
    }

    @Test("adding audio in pieces measures the same as adding it at once")
    func pieces() throws {
        var noise = SplitMix64(seed: 21)
        let samples = (0..<(2 * 3 * 44100)).map { _ in noise.nextSample() * 0.2 }
        let whole = try measure(samples, channels: 2, rate: 44100, withTruePeak: true)
        let cut = try measure(samples, channels: 2, rate: 44100, withTruePeak: true, pieces: 333)
        // Tolerance: block boundaries only reorder floating-point sums, 0.001 LU.
        #expect(abs(try whole.integratedLoudness() - cut.integratedLoudness()) < 0.001)
        #expect(try whole.samplePeak() == cut.samplePeak())
        #expect(abs(try whole.truePeak() - cut.truePeak()) < 1e-6)
    }

    @Test("a meter with no channels is a library error")
    func noChannels() {
        let error = #expect(throws: IOError.self) { _ = try LoudnessMeter(channels: 0, rate: 48000) }
        #expect(error?.kind == .library)
    }
}

/// The Swift gate that measures what a render wrote reads what libebur128 reads: the loudness
/// and the loudness range of noise whose level steps and slides over a minute, at three rates,
/// mono and stereo, fed in blocks that split the 100-ms hops.
@Suite struct LoudnessGateAgainstLibebur128Tests {
    @Test(arguments: [(8000, 1), (44100, 2), (48000, 2)])
    func theGateReadsWhatLibebur128Reads(rate: Int, channels: Int) throws {
        var g = SeededGenerator(seed: 11)
        let frames = 70 * rate
        // 10-s stretches at 0, −12, −4, −20, −8 dB, then a slide from −2 to −18 dB, then silence.
        let steps: [Double] = [0, -12, -4, -20, -8]
        var samples = [Float](repeating: 0, count: frames * channels)
        for f in 0..<(65 * rate) {
            let t = Double(f) / Double(rate)
            let db = t < 50 ? steps[Int(t / 10)] : -2 - 16 * (t - 50) / 15
            let amplitude = Float(0.3 * pow(10, db / 20))
            for c in 0..<channels { samples[f * channels + c] = (g.nextUnit() - 0.5) * amplitude }
        }
        let reference = try LoudnessMeter(channels: channels, rate: rate, withRange: true)
        let gate = LoudnessGate(channels: channels, rate: rate, withRange: true)
        let binned = LoudnessGate(channels: channels, rate: rate, withRange: true, binned: true)
        try samples.withUnsafeBufferPointer { p in
            var f = 0
            while f < frames {
                let n = min(1237, frames - f)
                try reference.add(p.baseAddress! + f * channels, frameCount: n)
                gate.add(p.baseAddress! + f * channels, frameCount: n)
                binned.add(p.baseAddress! + f * channels, frameCount: n)
                f += n
            }
        }
        let range = try reference.loudnessRange()
        #expect(range > 10, "the material has a range to measure: \(range) LU")
        // libebur128 keeps its blocks in 0.1-LU bins; the gate keeps them exact.
        #expect(abs(gate.loudnessRange - range) <= 0.15, "range \(gate.loudnessRange) against \(range) LU")
        let loudness = try reference.integratedLoudness()
        #expect(abs(gate.integratedLoudness - loudness) <= 0.05, "loudness \(gate.integratedLoudness) against \(loudness) LUFS")
        // The binned gate, as the checks of what a render wrote use it, reads the same.
        #expect(abs(binned.loudnessRange - range) <= 0.15, "binned range \(binned.loudnessRange) against \(range) LU")
        #expect(abs(binned.integratedLoudness - loudness) <= 0.05, "binned loudness \(binned.integratedLoudness) against \(loudness) LUFS")
    }
}
