import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

@Suite("Resampler")
struct ResamplerTests {
    @Test("targetLength is round(frames × to / from), halves rounding up", arguments: [
        // (frames, from, to, expected)
        (0, 44100, 48000, 0),
        (1, 44100, 48000, 1),  // 1.088
        (1, 48000, 22050, 0),  // 0.459
        (1, 8000, 96000, 12),
        (1000, 48000, 22050, 459),  // 459.375
        (1000, 44100, 48000, 1088),  // 1088.435
        (44100, 44100, 48000, 48000),
        (44101, 44100, 48000, 48001),  // 48001.088
        (44101, 48000, 22050, 20259),  // 20258.897
        (1, 2, 1, 1),  // 0.5 rounds up
        (3, 2, 1, 2),  // 1.5 rounds up
        (5, 4, 1, 1),  // 1.25
        (7, 4, 1, 2),  // 1.75
        (691_200_000, 48000, 44100, 635_040_000),  // 4 hours, exact
        (1 << 40, 8000, 768_000, (1 << 40) * 96),  // no overflow in the products
    ])
    func targetLength(frames: Int, from: Int, to: Int, expected: Int) {
        #expect(Resampler.targetLength(frameCount: frames, from: from, to: to) == expected)
    }

    @Test("resample returns exactly targetLength frames", arguments: [(44100, 48000), (48000, 22050), (8000, 96000)],
          [1, 1000, 44101])
    func exactLength(rates: (Int, Int), frames: Int) throws {
        for channels in [1, 2] {
            let input = sineWave(frames: frames, rate: rates.0, frequencies: Array([300.0, 450.0].prefix(channels)))
            let output = try Resampler.resample(AudioAsset(channels: channels, samples: input), from: rates.0, to: rates.1)
            #expect(output.channels == channels)
            #expect(output.frameCount == Resampler.targetLength(frameCount: frames, from: rates.0, to: rates.1),
                    "\(channels) ch")
            #expect(output.samples.allSatisfy { $0.isFinite })
            if frames >= 1000 {
                // The signal comes through, it is not all padding. Tolerance: low tones keep their
                // RMS level within 1 dB (the cut ends ring a little).
                let level = decibels(rms(output.samples) / rms(input))
                #expect(abs(level) < 1, "\(channels) ch: level off by \(level) dB")
            }
        }
    }

    @Test("equal rates and empty assets come back unchanged")
    func unchanged() throws {
        let input = AudioAsset(channels: 2, samples: noiseSamples(count: 2 * 777, seed: 9))
        let same = try Resampler.resample(input, from: 44100, to: 44100)
        #expect(same.channels == 2)
        #expect(same.samples == input.samples)
        let empty = try Resampler.resample(AudioAsset(channels: 1, samples: []), from: 44100, to: 48000)
        #expect(empty.frameCount == 0)
    }

    @Test("a sine keeps its frequency, phase and amplitude", arguments: [
        (44100, 48000, 1000.0), (48000, 44100, 1000.0), (48000, 22050, 2500.0), (8000, 96000, 440.0),
        (22050, 48000, 5000.0),
    ])
    func sineSurvives(from: Int, to: Int, frequency: Double) throws {
        let seconds = 1.0
        // Left carries the tone, right the tone at 1.5× with another amplitude: a swap or a
        // misplaced interleave shows.
        let freqs = [frequency, frequency * 1.5]
        let amps = [0.5, 0.25]
        let framesIn = Int(seconds * Double(from))
        var input = [Float](repeating: 0, count: 2 * framesIn)
        for c in 0..<2 {
            let one = sineWave(frames: framesIn, rate: from, frequencies: [freqs[c]], amplitude: amps[c])
            for n in 0..<framesIn { input[2 * n + c] = one[n] }
        }
        let output = try Resampler.resample(AudioAsset(channels: 2, samples: input), from: from, to: to)
        let framesOut = output.frameCount
        // The steady middle: away from the filter's start and end transients.
        let middle = (framesOut / 10)..<(framesOut - framesOut / 10)
        for c in 0..<2 {
            let got = channel(output.samples, c, of: 2)
            let ideal = sineWave(frames: framesOut, rate: to, frequencies: [freqs[c]], amplitude: amps[c])
            // Tolerance: correlation > 0.99999 with the ideal sine at the new rate, same phase
            // (libsamplerate's medium sinc reaches 1 − 1e-13 here); a shift of one output sample
            // (at worst 1 − 4e-4, for 440 Hz at 96 kHz) or a wrong frequency falls below.
            let r = correlation(got[middle], ideal[middle])
            #expect(r > 0.99999, "channel \(c): correlation \(r)")
            // Tolerance: the level within 0.5 dB.
            let level = decibels(rms(got[middle]) / (amps[c] / 2.0.squareRoot()))
            #expect(abs(level) < 0.5, "channel \(c): level off by \(level) dB")
        }
    }

    @Test("a tone above the new Nyquist frequency is filtered out")
    func antiAliasing() throws {
        // 15 kHz at 48 kHz, converted to 22050 Hz (Nyquist 11025 Hz): it must not fold down to 7050 Hz.
        let input = sineWave(frames: 48000, rate: 48000, frequencies: [15000], amplitude: 0.5)
        let output = try Resampler.resample(AudioAsset(channels: 1, samples: input), from: 48000, to: 22050)
        let middle = output.samples[(output.frameCount / 10)..<(output.frameCount - output.frameCount / 10)]
        // Tolerance: at least 60 dB below the input (libsamplerate's medium sinc gives about 97 dB).
        let level = decibels(rms(middle) / (0.5 / 2.0.squareRoot()))
        #expect(level < -60, "alias at \(level) dB")
    }

    @Test("an unknown converter quality is a library error", arguments: [Int32(99), -1])
    func refusedQuality(quality: Int32) {
        let error = #expect(throws: IOError.self) { _ = try Resampler(channels: 2, quality: quality) }
        #expect(error?.kind == .library)
        #expect(error?.cause?.isEmpty == false)
    }

    @Test("a converter with no channels is a library error, not a crash")
    func refusedNoChannels() {
        let error = #expect(throws: IOError.self) { _ = try Resampler(channels: 0) }
        #expect(error?.kind == .library)
    }

    @Test("a single frame at a lower rate still gives whole frames, and one in, twelve out going up")
    func singleFrame() throws {
        let down = try Resampler.resample(AudioAsset(channels: 2, samples: [0.5, -0.5]), from: 48000, to: 22050)
        #expect(down.frameCount == 0)
        #expect(down.samples.isEmpty)
        let up = try Resampler.resample(AudioAsset(channels: 2, samples: [0.5, -0.5]), from: 8000, to: 96000)
        #expect(up.frameCount == 12)
        #expect(up.samples.count == 24)
    }
}
