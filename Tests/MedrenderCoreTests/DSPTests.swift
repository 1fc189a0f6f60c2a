import Foundation
@testable import MedrenderCore
import Testing

@Suite struct ToneSynthTests {
    @Test(arguments: CueTimbre.allCases, [8000, 22050, 48000, 96000])
    func toneStartsAboveZeroAndEndsOnZero(timbre: CueTimbre, rate: Int) {
        // One frame cannot both start above zero and end on zero; a phase is never that short.
        for frames in [2, 5, 100, rate / 2] {
            let tone = ToneSynth.tone(timbre: timbre, pitchHertz: 440, frameCount: frames, rate: rate)
            #expect(tone.frameCount == frames)
            #expect(tone.samples.last == 0)
            if frames > 1 { #expect(tone.samples[0] > 0) }
            #expect(tone.peak <= 1.0001)
        }
    }

    @Test(arguments: CueTimbre.allCases, [8000, 48000])
    func aToneMatchesItsPartialsTakenByCosine(timbre: CueTimbre, rate: Int) {
        // The synth turns each partial by rotation; here every frame is taken by cos, as the
        // partials define it, and shaped alike. 4 s is four thousand rotations past each anchor.
        let frames = rate * 4, pitch = 523.25
        let tone = ToneSynth.tone(timbre: timbre, pitchHertz: pitch, frameCount: frames, rate: rate)
        var exact = [Double](repeating: 0, count: frames)
        let hz = Double(rate)
        for part in ToneSynth.partials(for: timbre, lengthSeconds: 4) where pitch * part.ratio < 0.45 * hz {
            let omega: Double = 2 * Double.pi * pitch * part.ratio / hz
            let fall: Double = -6.907755 / (part.decaySeconds * hz)
            for n in 0..<frames {
                let t = Double(n)
                exact[n] += part.amplitude * exp(fall * t) * cos(omega * t)
            }
        }
        let peak = exact.map(abs).max()!
        let attack = min(max(1, rate / 200), frames / 4), release = min(max(1, rate / 50), frames / 2)
        var worst = 0.0
        for n in 0..<frames {
            var gain = Double(Ramp.attack(n, length: attack)) / peak
            if n >= frames - release { gain *= Double(Ramp.release(n - (frames - release), length: release)) }
            worst = max(worst, abs(Double(tone.samples[n]) - exact[n] * gain))
        }
        // A Float holds a sample near 1 to 6e-8; the rotation adds nothing that shows.
        #expect(worst < 3e-7, "\(timbre) at \(rate) Hz differs by \(worst)")
    }

    @Test func attackIsNeverZeroAndReachesOne() {
        #expect(Ramp.attack(0, length: 480) > 0)
        #expect(Ramp.attack(480, length: 480) == 1)
        #expect(Ramp.release(479, length: 480) == 0)
        #expect(Ramp.release(0, length: 480) < 1)
    }
}

@Suite struct LoopedBedTests {
    /// Stationary noise with a fixed seed.
    func noise(frames: Int, channels: Int, seed: UInt64) -> AudioAsset {
        var g = SeededGenerator(seed: seed)
        return AudioAsset(channels: channels, samples: (0..<(frames * channels)).map { _ in g.nextUnit() - 0.5 })
    }

    func rms(_ s: ArraySlice<Float>) -> Double {
        (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)).squareRoot()
    }

    @Test func seamKeepsLevelAndLengthIsRecordingMinusSeam() {
        let rate = 8000
        let source = noise(frames: rate * 10, channels: 1, seed: 7)
        let loop = LoopedBed.bake(source, seamFrames: rate)
        #expect(loop.frameCount == rate * 9)
        // Uncorrelated noise under an equal-power crossfade keeps its level: within 0.5 dB.
        let whole = rms(source.samples[...])
        let seamLevel = rms(loop.samples[(rate / 4)..<(3 * rate / 4)])
        #expect(abs(20 * log10(seamLevel / whole)) < 0.5)
        // Around the wrap (last frames → first frames) no jump is larger than the material's own.
        let maxStep = zip(source.samples.dropFirst(), source.samples).map { abs($0 - $1) }.max()!
        #expect(abs(loop.samples[0] - loop.samples[loop.frameCount - 1]) <= maxStep)
    }

    @Test func seamContinuesTheRecordingAcrossTheWrap() {
        // A ramp 0, 1, 2, …: at the wrap the loop goes from frame n−s−1 to the blend that starts at
        // frame n−s of the recording, so the first loop frame is almost that value (the ends of a
        // ramp correlate, so the crossfade is near equal gain there: within 1 %).
        let n = 1000, s = 100
        let source = AudioAsset(channels: 1, samples: (0..<n).map(Float.init))
        let loop = LoopedBed.bake(source, seamFrames: s)
        #expect(loop.samples[n - s - 1] == Float(n - s - 1))
        #expect(abs(loop.samples[0] - Float(n - s)) < 0.01 * Float(n - s))
    }

    /// A sine's seam holds its level: whatever its phase at the two ends (in phase, out of phase,
    /// between), the loop played three times round stays within ±0.5 dB of the sine over every
    /// 100 ms, across every seam (the 900 Hz bed with a 1-s seam swelled by 2.7 dB).
    @Test(arguments: [9.0, 9.37, 9.0 + 0.5 / 900, 8.2961])
    func aToneHoldsItsLevelAcrossTheSeam(seconds: Double) {
        let rate = 8000, frames = Int(seconds * Double(rate))
        let source = AudioAsset(channels: 2, samples: (0..<frames * 2).map { Float(0.5 * sin(2 * Double.pi * 900 * Double($0 / 2) / Double(rate))) })
        let loop = LoopedBed.bake(source, seamFrames: rate)
        #expect(loop.frameCount <= frames - rate && loop.frameCount >= frames - rate - LoopedBed.alignmentFrames)
        let played = loop.samples + loop.samples + loop.samples
        let steady = 0.5 / 2.0.squareRoot()
        let window = rate / 10 * 2
        var worst = 0.0
        for start in stride(from: 0, to: played.count - window, by: window / 2) {
            worst = max(worst, abs(20 * log10(rms(played[start..<start + window]) / steady)))
        }
        #expect(worst <= 0.5, "a \(seconds)-s tone strays \(worst) dB")
    }

    /// A drone (three partials, slowly beating) holds its level too.
    @Test func aDroneHoldsItsLevelAcrossTheSeam() {
        let rate = 8000, frames = 12_345 * 4
        let samples = (0..<frames).map { n -> Float in
            let t = Double(n) / Double(rate)
            return Float(0.3 * sin(2 * .pi * 110 * t) + 0.2 * sin(2 * .pi * 220.4 * t) + 0.1 * sin(2 * .pi * 331 * t))
        }
        let source = AudioAsset(channels: 1, samples: samples)
        let loop = LoopedBed.bake(source, seamFrames: rate)
        let steady = rms(source.samples[...])
        let played = loop.samples + loop.samples
        let window = rate / 2
        var worst = 0.0
        for start in stride(from: 0, to: played.count - window, by: window / 4) {
            worst = max(worst, abs(20 * log10(rms(played[start..<start + window]) / steady)))
        }
        #expect(worst <= 0.5, "the drone strays \(worst) dB")
    }

    /// The level over every 50 ms of `loop` played twice round, against `steady`, in decibels: the
    /// farthest it strays either way.
    func seamExcursion(_ loop: AudioAsset, steady: Double, window: Int) -> (low: Double, high: Double) {
        let played = loop.samples + loop.samples
        let levels = stride(from: 0, to: played.count - window, by: window / 2).map { 20 * log10(rms(played[$0..<$0 + window]) / steady) }
        return (levels.min()!, levels.max()!)
    }

    /// The amplitude of the partial at `hertz` over `window` frames from `start` (a Hann window's
    /// projection, so a neighbouring partial 80 Hz off does not leak in at 8 kHz over 100 ms).
    func partialLevel(_ x: [Float], hertz: Double, rate: Int, start: Int, window: Int) -> Double {
        var re = 0.0, im = 0.0, weights = 0.0
        for k in 0..<window {
            let w = 0.5 - 0.5 * cos(2 * .pi * Double(k) / Double(window))
            let phase = 2 * .pi * hertz * Double(start + k) / Double(rate)
            re += w * Double(x[start + k]) * cos(phase); im += w * Double(x[start + k]) * sin(phase)
            weights += w
        }
        return 20 * log10(2 * (re * re + im * im).squareRoot() / weights)
    }

    /// A drone with vibrato (220 and 440 Hz, ±3 % at 5.7 Hz) crosses a 3-s seam without a swell or
    /// a dip: within ±1 dB of its own level over every 50 ms, whatever its length (its ends' vibrato
    /// drifting in and out of phase across the seam swelled it by +2.3 dB and took it 4.5 dB down).
    @Test(arguments: [9.37, 10.51, 11.0, 12.83, 13.29])
    func aVibratoDroneCrossesItsSeamWithoutASwell(seconds: Double) {
        let rate = 8000, frames = Int(seconds * Double(rate))
        var phase = 0.0
        let samples = (0..<frames).map { n -> Float in
            phase += 2 * .pi * 220 * (1 + 0.03 * sin(2 * .pi * 5.7 * Double(n) / Double(rate))) / Double(rate)
            return Float(0.4 * sin(phase) + 0.2 * sin(2 * phase))
        }
        let loop = LoopedBed.bake(AudioAsset(channels: 1, samples: samples), seamFrames: 3 * rate)
        let (low, high) = seamExcursion(loop, steady: rms(samples[...]), window: rate / 20)
        #expect(low >= -1 && high <= 1, "a \(seconds)-s vibrato drone strays \(low)…\(high) dB")
    }

    /// An inharmonic pair (200 Hz and √2 times it, a stereo bed) crosses its seam with both partials
    /// whole: each within ±1 dB of its own level over every 100 ms (one partial in phase at the two
    /// ends and the other out of it, the pair flickered: +3.0 dB, −27.6 dB).
    @Test(arguments: [9.0, 9.77, 10.43, 11.9, 12.345])
    func anInharmonicPairCrossesItsSeamWithBothPartials(seconds: Double) {
        let rate = 8000, frames = Int(seconds * Double(rate)), high = 200 * 2.0.squareRoot()
        let samples = (0..<frames * 2).map { i -> Float in
            let t = Double(i / 2) / Double(rate)
            return Float(0.3 * sin(2 * .pi * 200 * t) + 0.3 * sin(2 * .pi * high * t + 1 + Double(i % 2)))
        }
        let loop = LoopedBed.bake(AudioAsset(channels: 2, samples: samples), seamFrames: 2 * rate)
        let played = loop.samples + loop.samples
        let left = stride(from: 0, to: played.count, by: 2).map { played[$0] }
        let window = rate / 10, steady = 20 * log10(0.3)
        for hertz in [200, high] {
            let levels = stride(from: 0, to: left.count - window, by: window / 2).map {
                partialLevel(left, hertz: hertz, rate: rate, start: $0, window: window) - steady
            }
            #expect(levels.min()! >= -1 && levels.max()! <= 1, "\(seconds) s: the \(hertz)-Hz partial strays \(levels.min()!)…\(levels.max()!) dB")
        }
    }

    /// Noise keeps today's equal-power seam, sample for sample: rain and ocean are as they were.
    @Test func noiseKeepsTheEqualPowerSeam() {
        let rate = 8000, s = rate
        let source = noise(frames: rate * 10, channels: 2, seed: 11)
        let loop = LoopedBed.bake(source, seamFrames: s)
        #expect(loop.frameCount == rate * 9)
        for i in stride(from: 0, to: s, by: 97) {
            let x = (Double(i) + 0.5) / Double(s)
            let expected = source.samples[i * 2] * Float(sin(x * .pi / 2)) + source.samples[(rate * 9 + i) * 2] * Float(cos(x * .pi / 2))
            #expect(loop.samples[i * 2] == expected)
        }
    }

    @Test func shortRecordingHalvesTheSeam() {
        let loop = LoopedBed.bake(AudioAsset(channels: 2, samples: [Float](repeating: 0.1, count: 20)), seamFrames: 100)
        #expect(loop.frameCount == 5)
    }
}

@Suite struct LimiterTests {
    @Test(arguments: [8000, 44100, 48000])
    func outputIsTheInputDelayedByLatencyWhenQuiet(rate: Int) {
        let limiter = TruePeakLimiter(channels: 2, rate: rate, ceilingDecibels: -1)
        var input = [Float](repeating: 0, count: 2 * 2048)
        input[2 * 100] = 0.25
        input[2 * 100 + 1] = -0.125
        var output = [Float](repeating: 0, count: input.count)
        limiter.process(input, &output, frameCount: 2048)
        let index = 100 + limiter.latency
        #expect(output[2 * index] == 0.25)
        #expect(output[2 * index + 1] == -0.125)
        #expect(output.enumerated().filter { $0.element != 0 }.count == 2)
    }

    @Test(arguments: [-1.0, -3.0, -0.1])
    func loudSineIsHeldUnderTheCeilingIncludingBetweenSamples(ceiling: Double) {
        let rate = 44100
        let limiter = TruePeakLimiter(channels: 1, rate: rate, ceilingDecibels: ceiling)
        // A near-Nyquist sine at 2.0 peak has peaks between its samples.
        let frames = rate
        let input = (0..<frames).map { Float(2.0 * sin(2 * Double.pi * 11025.0 * Double($0) / Double(rate) + 0.7)) }
        var output = [Float](repeating: 0, count: frames)
        limiter.process(input, &output, frameCount: frames)
        let linearCeiling = Float(pow(10, ceiling / 20))
        #expect(output.allSatisfy { abs($0) <= linearCeiling })
        // Between-sample peak, by 8× sinc interpolation over the steady middle: at or under the
        // ceiling, with 0.1 dB of tolerance for the interpolator's own error.
        let middle = Array(output[(frames / 4)..<(frames * 3 / 4)])
        var truePeak: Float = 0
        for i in 8..<(middle.count - 8) {
            for k in 1..<8 {
                let t = Double(k) / 8
                var acc = 0.0
                for j in -7...8 {
                    let x = Double(j) - t
                    acc += Double(middle[i + j]) * sin(.pi * x) / (.pi * x) * (0.5 + 0.5 * cos(.pi * x / 9))
                }
                truePeak = max(truePeak, Float(abs(acc)))
            }
        }
        #expect(20 * log10(Double(truePeak)) <= ceiling + 0.1)
    }

    @Test func quietBlocksTakeTheFastPathWithoutChangingAnything() {
        // Quiet stretches with loud bursts: processed in big blocks (quiet ones pass straight
        // through) and in 7-frame blocks (which the fast path rarely takes), the output is identical.
        let rate = 8000
        var g = SeededGenerator(seed: 5)
        let input: [Float] = (0..<(rate * 16)).map { i in
            let loud = (i / 20000) % 3 == 1  // 10,000-frame stretches
            return (g.nextUnit() - 0.5) * (loud ? 3 : 0.2)
        }
        func run(block: Int) -> [Float] {
            let limiter = TruePeakLimiter(channels: 2, rate: rate)
            var output = [Float](repeating: 0, count: input.count)
            var done = 0
            while done < input.count / 2 {
                let n = min(block, input.count / 2 - done)
                input.withUnsafeBufferPointer { i in
                    output.withUnsafeMutableBufferPointer { o in
                        limiter.process(i.baseAddress! + done * 2, o.baseAddress! + done * 2, frameCount: n)
                    }
                }
                done += n
            }
            return output
        }
        let big = run(block: 1024)
        #expect(big == run(block: 7))
        #expect(big.contains { $0 != 0 })
    }

    /// After a peak, the gain comes back to exactly 1 and the limiter to rest: a later stretch
    /// whose peaks come near the ceiling but stay under it goes out as it came in, whatever the
    /// blocks (a block of 7 frames is limited frame by frame, a block of 4,096 passes through).
    /// Its release once stopped 10⁻⁴ short of 1 and limited every later frame.
    @Test(arguments: [8000, 48000])
    func theGainComesBackToOneAfterAPeak(rate: Int) {
        let frames = 4 * rate, burst = rate / 10
        let ceiling = pow(10, -1.0 / 20)
        // A loud burst, then a 220-Hz sine at 0.8 of the ceiling (within 6 dB of it, not over).
        let input = (0..<frames).map { f -> Float in
            f < burst ? 1.5 : Float(0.8 * ceiling * sin(2 * Double.pi * 220 * Double(f) / Double(rate)))
        }
        func run(block: Int) -> (output: [Float], gains: [Float], latency: Int) {
            let limiter = TruePeakLimiter(channels: 1, rate: rate)
            var output = [Float](repeating: 0, count: frames), gains = [Float](repeating: 0, count: frames)
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                input.withUnsafeBufferPointer { i in
                    output.withUnsafeMutableBufferPointer { o in
                        gains.withUnsafeMutableBufferPointer { g in
                            limiter.process(i.baseAddress! + done, o.baseAddress! + done, frameCount: n, gains: g.baseAddress! + done)
                        }
                    }
                }
                done += n
            }
            return (output, gains, limiter.latency)
        }
        let (output, gains, latency) = run(block: 4096)
        #expect(gains[burst] < 0.7, "the burst is limited")
        // Two seconds on, the gain is 1 and every frame is the input's, `latency` frames late.
        let settled = 2 * rate
        #expect(gains[settled...].allSatisfy { $0 == 1 }, "the gain stays under 1: \(gains[settled...].min()!)")
        #expect((settled..<frames).allSatisfy { output[$0] == input[$0 - latency] })
        #expect(run(block: 7).output == output)
    }

    @Test func nonFiniteInputBecomesSilence() {
        let limiter = TruePeakLimiter(channels: 1, rate: 8000)
        var input = [Float](repeating: 0.1, count: 512)
        input[10] = .nan
        input[20] = .infinity
        var output = [Float](repeating: 0, count: 512)
        limiter.process(input, &output, frameCount: 512)
        #expect(output.allSatisfy { $0.isFinite })
    }
}

@Suite struct DitherTests {
    @Test func sameSeedSameSamples() {
        let input = (0..<1000).map { Float(sin(Double($0) * 0.01)) * 0.5 }
        var a = [Int16](repeating: 0, count: 1000), b = a
        var d1 = TPDFDither(seed: 3), d2 = TPDFDither(seed: 3)
        d1.quantize(input, &a, count: 1000)
        d2.quantize(input, &b, count: 1000)
        #expect(a == b)
        // Dither moves a sample by at most 1 LSB beyond rounding.
        for (x, q) in zip(input, a) { #expect(abs(Float(q) - x * 32767) <= 1.5) }
    }

    /// Silence dithered is triangular noise of ±1 LSB rounded: −1, 0 and 1 in about 1 : 6 : 1; a
    /// sample that is not a number is 0, and one past full scale is held at it.
    @Test func silenceTakesTriangularNoiseAndTheEdgesHold() {
        let count = 80_000
        var input = [Float](repeating: 0, count: count)
        var output = [Int16](repeating: 7, count: count)
        var dither = TPDFDither(seed: 11)
        dither.quantize(input, &output, count: count)
        let ones = output.filter { $0 == 1 }.count, minusOnes = output.filter { $0 == -1 }.count
        #expect(output.allSatisfy { (-1...1).contains($0) })
        for share in [Double(ones) / Double(count), Double(minusOnes) / Double(count)] {
            #expect(abs(share - 0.125) < 0.01, "±1 in \(share) of the samples, not 1 in 8")
        }
        input[0...3] = [.nan, .infinity, -.infinity, 1.5]
        dither.quantize(input, &output, count: 4)
        #expect(Array(output[0...3]) == [0, 32767, -32768, 32767])
    }
}

@Suite struct SamplePeakTests {
    /// The vector measure against one sample at a time, on lengths that end mid-vector, with the
    /// largest magnitude negative or positive, anywhere, and with samples that are not numbers.
    @Test(arguments: [0, 1, 7, 8, 9, 63, 64, 1001])
    func largestMagnitudeIsTheLargestAbsoluteValue(count: Int) {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<50 {
            var samples = (0..<count).map { _ in Float.random(in: -0.9...0.9, using: &generator) }
            if count > 0 {
                let at = Int.random(in: 0..<count, using: &generator)
                samples[at] = trial % 2 == 0 ? -0.95 : 0.95
                if trial % 5 == 0 { samples[Int.random(in: 0..<count, using: &generator)] = .nan }
            }
            let expected = samples.reduce(Float(0)) { $1.isNaN ? $0 : max($0, abs($1)) }
            let measured = samples.withUnsafeBufferPointer { SamplePeak.largestMagnitude($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: count) }
            #expect(measured == expected, "trial \(trial): \(measured) against \(expected)")
        }
    }
}
