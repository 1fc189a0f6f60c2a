import Foundation
import MedrenderCore
import Testing

@Suite struct AmbienceSourceTests {
    static func render(_ kind: AmbienceKind, rate: Int, channels: Int = 2, from start: Int64 = 0, frames: Int, seed: UInt64 = 7,
                       block: Int = 4096) -> [Float] {
        let source = AmbienceSource(kind: kind, rate: rate, channels: channels, seed: seed)
        var out = [Float](repeating: 0, count: frames * channels)
        out.withUnsafeMutableBufferPointer { p in
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                source.render(into: p.baseAddress! + done * channels, from: start + Int64(done), frameCount: n)
                done += n
            }
        }
        return out
    }

    @Test(arguments: AmbienceKind.allCases)
    func startedAnywhereGivesTheSameFrames(kind: AmbienceKind) {
        let rate = 8000
        let whole = Self.render(kind, rate: rate, frames: 14 * rate, block: 1000)
        // Inside a chunk, on a chunk's first frame, one before it, across a chunk's edge, and on a
        // control point's edge.
        for start: Int64 in [1, 12_345, 32_000, 31_999, 63_990, 44_800] {
            let part = Self.render(kind, rate: rate, from: start, frames: 9000, block: 777)
            #expect(part == Array(whole[Int(start) * 2 ..< (Int(start) + 9000) * 2]), "\(kind) from frame \(start)")
        }
        #expect(Self.render(kind, rate: rate, frames: 8000, seed: 8) != Array(whole[0..<16000]), "\(kind): another seed, other frames")
    }

    /// A stereo source runs its ears side by side (the ocean's as the lanes of one vector, the
    /// rain's with what the ears share worked out once) and a mono source runs its one ear alone,
    /// a frame at a time: the left ear is the mono source's frames to the bit, at rates whose
    /// control points and chunks fall differently.
    @Test(arguments: AmbienceKind.allCases)
    func theLeftEarIsWhatAMonoSourceRenders(kind: AmbienceKind) {
        for rate in [22_050, 44_100] {
            let stereo = Self.render(kind, rate: rate, frames: 5 * rate, block: 999)
            let mono = Self.render(kind, rate: rate, channels: 1, frames: 5 * rate, block: 1000)
            let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
            #expect(left == mono, "\(kind) at \(rate) Hz")
            let right = stride(from: 1, to: stereo.count, by: 2).map { stereo[$0] }
            #expect(right != left, "\(kind) at \(rate) Hz: the ears are their own")
        }
    }

    /// The envelope every 0.1 s over 3 hours, as render computes it (at 8 kHz).
    static func envelope(_ kind: AmbienceKind, seconds: Int, seed: UInt64 = 7) -> [Double] {
        let source = AmbienceSource(kind: kind, rate: 8000, channels: 2, seed: seed)
        return (0..<seconds * 10).map { source.envelope(atFrame: Int64($0) * 800) }
    }

    /// The largest normalized autocorrelation of `x` (mean removed) at lags from `minLag` to
    /// half its length, each lag over the samples it overlaps.
    static func largestAutocorrelation(_ x: [Double], minLag: Int) -> Double {
        let n = x.count
        let mean = x.reduce(0, +) / Double(n)
        var size = 1
        while size < 2 * n { size <<= 1 }
        var re = x.map { $0 - mean } + [Double](repeating: 0, count: size - n), im = [Double](repeating: 0, count: size)
        Spectrum.fft(&re, &im)
        for k in 0..<size { re[k] = re[k] * re[k] + im[k] * im[k]; im[k] = 0 }
        Spectrum.fft(&re, &im)  // the power spectrum is real and even: its forward transform is the autocorrelation × size
        let zero = re[0] / Double(n)
        var largest = -1.0
        for lag in minLag...(n / 2) { largest = max(largest, re[lag] / Double(n - lag) / zero) }
        return largest
    }

    /// What a listener hears does not come back either: the level of the rendered bed (its RMS
    /// over each 100 ms, 8 kHz, one ear) over 20 minutes correlates under 0.5 with itself at
    /// every lag from 20 s to 10 minutes. A shipped loop reaches 1 at its length (the rain's 27 s,
    /// the ocean's 34 s); before the rain came in gusts and the waves at 6–14 s, the generated
    /// rain reached 0.86 at 20 s and the ocean 0.55.
    @Test(arguments: AmbienceKind.allCases, [UInt64(7), 12])
    func twentyMinutesHeardNeverComeBack(kind: AmbienceKind, seed: UInt64) {
        let rate = 8000, hop = 800
        let samples = Self.render(kind, rate: rate, channels: 1, frames: 20 * 60 * rate, seed: seed)
        let levels = stride(from: 0, to: samples.count - hop + 1, by: hop).map { start in
            (samples[start..<start + hop].map { Double($0) * Double($0) }.reduce(0, +) / Double(hop)).squareRoot()
        }
        let largest = Self.largestAutocorrelation(levels, minLag: 200)
        #expect(largest < 0.5, "\(kind), seed \(seed): the level correlates \(largest) with itself at some lag of 20 s to 10 minutes")
    }

    /// Over 3 hours, each ambience's envelope comes back at no period: its autocorrelation stays
    /// low at every lag from 2 minutes to 90 minutes, where a loop's would reach 1 at its length
    /// (the same measure finds a 47-s loop of the same envelope); and its level stays in its band.
    @Test(arguments: AmbienceKind.allCases)
    func threeHoursNeverRepeatAndStayInTheirBand(kind: AmbienceKind) {
        let envelope = Self.envelope(kind, seconds: 3 * 3600)
        let largest = Self.largestAutocorrelation(envelope, minLag: 1200)
        #expect(largest < 0.4, "\(kind): autocorrelation \(largest) at some lag of 2–90 minutes")
        let looped = (0..<envelope.count).map { envelope[$0 % 470] }
        #expect(Self.largestAutocorrelation(looped, minLag: 1200) > 0.9, "the measure finds a loop")
        let rms = (envelope.map { $0 * $0 }.reduce(0, +) / Double(envelope.count)).squareRoot()
        let levels = envelope.map { 20 * log10($0 / rms) }
        let band = kind.levelBandDecibels, lowest = levels.min()!, highest = levels.max()!
        #expect(band.contains(lowest) && band.contains(highest), "\(kind): level \(lowest)…\(highest) dB outside \(band)")
        // It varies: a minute's level is not the same all along.
        let minutes = stride(from: 0, to: envelope.count - 600, by: 600).map { start in
            20 * log10((envelope[start..<start + 600].map { $0 * $0 }.reduce(0, +) / 600).squareRoot() / rms)
        }
        #expect(minutes.max()! - minutes.min()! > 1, "\(kind): the minutes' levels stay within 1 dB")
    }

    /// The ocean's waves come every 6–14 s, of varied sizes.
    @Test func oceanSwellsEverySixToFourteenSecondsOfVariedSize() {
        let envelope = Self.envelope(.ocean, seconds: 1800)
        var peaks: [(Int, Double)] = []
        for i in 30..<(envelope.count - 30) where envelope[i] == envelope[(i - 30)...(i + 30)].max()! {
            if let last = peaks.last, i - last.0 < 30 { continue }
            peaks.append((i, envelope[i]))
        }
        let intervals = zip(peaks, peaks.dropFirst()).map { Double($1.0 - $0.0) / 10 }
        let inRange = intervals.filter { (5.5...14.5).contains($0) }.count
        #expect(Double(inRange) >= 0.9 * Double(intervals.count), "intervals \(intervals.sorted())")
        #expect(intervals.count > 1800 / 14 - 5 && intervals.count < 1800 / 6 + 5)
        let sizes = peaks.map(\.1), mean = sizes.reduce(0, +) / Double(sizes.count)
        let spread = (sizes.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(sizes.count)).squareRoot() / mean
        #expect(spread > 0.1, "wave sizes vary by \(spread)")
    }

    /// What plays follows the envelope: the rendered level over each second, less the
    /// envelope's, stays within a narrow spread (the texture's own), and for the ocean and the
    /// wind, whose envelopes swing widely, the two go together.
    @Test(arguments: AmbienceKind.allCases)
    func renderFollowsTheEnvelope(kind: AmbienceKind) {
        let rate = 8000, seconds = 120
        let audio = Self.render(kind, rate: rate, channels: 1, frames: seconds * rate)
        let source = AmbienceSource(kind: kind, rate: rate, channels: 1, seed: 7)
        var rendered: [Double] = [], expected: [Double] = []
        for s in 0..<seconds {
            var a = 0.0, e = 0.0
            for f in s * rate..<(s + 1) * rate {
                a += Double(audio[f]) * Double(audio[f])
                let v = source.envelope(atFrame: Int64(f))
                e += v * v
            }
            rendered.append(10 * log10(a / Double(rate)))
            expected.append(10 * log10(e / Double(rate)))
        }
        let difference = zip(rendered, expected).map { $0 - $1 }
        let mean = difference.reduce(0, +) / Double(seconds)
        let spread = (difference.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(seconds)).squareRoot()
        #expect(spread < 1.5, "\(kind): rendered level strays from the envelope by \(spread) dB")
        if kind == .ocean || kind == .wind {
            let mr = rendered.reduce(0, +) / Double(seconds), me = expected.reduce(0, +) / Double(seconds)
            var sab = 0.0, saa = 0.0, sbb = 0.0
            for i in 0..<seconds {
                sab += (rendered[i] - mr) * (expected[i] - me); saa += (rendered[i] - mr) * (rendered[i] - mr); sbb += (expected[i] - me) * (expected[i] - me)
            }
            #expect(sab / (saa * sbb).squareRoot() > 0.8, "\(kind): rendered level does not follow the envelope")
        }
    }

    /// A generated bed in a plan: same seed, same frames; another session seed, others.
    @Test(arguments: [BedGenerator.rain, .ocean, .stream, .wind])
    func generatedAmbienceBedIsSeeded(generator: BedGenerator) throws {
        func mix(seed: UInt64) throws -> [Float] {
            var session = Session(name: "a", segments: [PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 6000, 0))],
                                  settle: .seconds(5), closing: .seconds(5))
            var bed = AmbienceBed(sound: SoundRef(generator.displayName), levelLUFS: -30)
            bed.generator = generator
            session.ambience = [bed]
            session.seed = seed
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, channels: 2, length: .duration(.seconds(30)),
                                                                               layers: [.ambience]), sounds: [:])
            #expect(plan.soundsUsed.isEmpty)
            return renderMix(plan, block: 1000)
        }
        let a = try mix(seed: 1), b = try mix(seed: 1), c = try mix(seed: 2)
        #expect(a == b)
        #expect(a != c)
        #expect(a.contains { $0 != 0 })
    }
}
