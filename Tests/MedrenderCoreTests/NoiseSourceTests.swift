import Foundation
import MedrenderCore
import Testing

@Suite struct NoiseSourceTests {
    static func render(_ colour: NoiseColour, rate: Int, from start: Int64 = 0, frames: Int, seed: UInt64 = 7, block: Int = 4096) -> [Float] {
        let source = NoiseSource(colour: colour, rate: rate, channels: 2, seed: seed)
        var out = [Float](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { p in
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                source.render(into: p.baseAddress! + done * 2, from: start + Int64(done), frameCount: n)
                done += n
            }
        }
        return out
    }

    /// The slope, in dB per octave, of a line fitted to the octave bands' power from 50 Hz to
    /// 15 kHz, the power a Welch average of Hann-windowed 8192-point FFTs, less the high-pass's
    /// response (`NoiseColour.decibels(atHertz:)` with the slope taken out).
    static func slope(_ x: [Double], rate: Int, colour: NoiseColour) -> Double {
        let size = 8192
        var psd = [Double](repeating: 0, count: size / 2)
        var start = 0
        while start + size <= x.count {
            var re = (0..<size).map { x[start + $0] * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
            var im = [Double](repeating: 0, count: size)
            Spectrum.fft(&re, &im)
            for k in 0..<size / 2 { psd[k] += re[k] * re[k] + im[k] * im[k] }
            start += size / 2
        }
        let bin = Double(rate) / Double(size)
        var points: [(Double, Double)] = []
        var low = 50.0
        while low < 15000 {
            let high = min(low * 2, 15000)
            let bins = Int((low / bin).rounded(.up))...Int((high / bin).rounded(.down))
            let mean = bins.map { psd[$0] }.reduce(0, +) / Double(bins.count)
            let highPass = bins.map { f -> Double in
                let hertz = Double(f) * bin
                return pow(10, (colour.decibels(atHertz: hertz) - colour.slopeDecibelsPerOctave! * log2(hertz / 1000)) / 10)
            }.reduce(0, +) / Double(bins.count)
            points.append((log2((low * high).squareRoot()), 10 * log10(mean / highPass)))
            low *= 2
        }
        let mx = points.map(\.0).reduce(0, +) / Double(points.count), my = points.map(\.1).reduce(0, +) / Double(points.count)
        let sxy = points.map { ($0.0 - mx) * ($0.1 - my) }.reduce(0, +), sxx = points.map { ($0.0 - mx) * ($0.0 - mx) }.reduce(0, +)
        return sxy / sxx
    }

    @Test(arguments: [44100, 48000], NoiseColour.allCases.filter { $0.slopeDecibelsPerOctave != nil })
    func spectralSlopeIsTheColours(rate: Int, colour: NoiseColour) {
        let noise = Self.render(colour, rate: rate, from: 3 * Int64(rate), frames: 6 * rate)
        for channel in 0..<2 {
            let slope = Self.slope((0..<6 * rate).map { Double(noise[$0 * 2 + channel]) }, rate: rate, colour: colour)
            #expect(abs(slope - colour.slopeDecibelsPerOctave!) <= 0.5, "\(colour) at \(rate) Hz, channel \(channel): \(slope) dB/octave")
        }
    }

    /// Octave bands' power from 50 Hz to 15 kHz (a Welch average of Hann-windowed 8192-point
    /// FFTs): each band's centre in octaves and its level in dB, the definition's the same way.
    static func octaveBands(_ x: [Double], rate: Int, definition: (Double) -> Double) -> [(octave: Double, measured: Double, defined: Double)] {
        let size = 8192
        var psd = [Double](repeating: 0, count: size / 2)
        var start = 0
        while start + size <= x.count {
            var re = (0..<size).map { x[start + $0] * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
            var im = [Double](repeating: 0, count: size)
            Spectrum.fft(&re, &im)
            for k in 0..<size / 2 { psd[k] += re[k] * re[k] + im[k] * im[k] }
            start += size / 2
        }
        let bin = Double(rate) / Double(size)
        var bands: [(Double, Double, Double)] = []
        var low = 50.0
        while low < 15000 {
            let high = min(low * 2, 15000)
            let bins = Int((low / bin).rounded(.up))...Int((high / bin).rounded(.down))
            let measured = bins.map { psd[$0] }.reduce(0, +) / Double(bins.count)
            let defined = bins.map { pow(10, definition(Double($0) * bin) / 10) }.reduce(0, +) / Double(bins.count)
            bands.append((log2((low * high).squareRoot()), 10 * log10(measured), 10 * log10(defined)))
            low *= 2
        }
        return bands
    }

    /// Grey noise follows its definition (the inverse A-weighting below 1 kHz, flat above) from
    /// 50 Hz to 15 kHz: from each octave band to the next, the measured step is the defined step
    /// within 0.5 dB, so the shape's slope is its definition's within ±0.5 dB/octave everywhere.
    @Test(arguments: [44100, 48000])
    func greyFollowsItsDefinition(rate: Int) {
        let colour = NoiseColour.grey
        let noise = Self.render(colour, rate: rate, from: 3 * Int64(rate), frames: 8 * rate)
        for channel in 0..<2 {
            let bands = Self.octaveBands((0..<8 * rate).map { Double(noise[$0 * 2 + channel]) }, rate: rate, definition: colour.decibels(atHertz:))
            for (a, b) in zip(bands, bands.dropFirst()) {
                let slope = (b.measured - a.measured) / (b.octave - a.octave), defined = (b.defined - a.defined) / (b.octave - a.octave)
                #expect(abs(slope - defined) <= 0.5, "grey at \(rate) Hz, channel \(channel), octave at \(pow(2, a.octave)) Hz: \(slope) dB/octave, defined \(defined)")
            }
            // Not a flat or a pink spectrum: the definition's bass lift is there (+27.6 dB at 50 Hz over 1 kHz).
            #expect(bands[0].measured - bands[4].measured > 18)
        }
    }

    /// No more than 10 % of a colour's power is under 20 Hz, where no speaker plays: a Welch average
    /// of Hann-windowed 32768-point FFTs (1.5 Hz a bin at 48 kHz) over 20 s, each channel.
    @Test(arguments: [44100, 48000], NoiseColour.allCases)
    func littleOfTheNoiseIsInfrasound(rate: Int, colour: NoiseColour) {
        let size = 32768, seconds = 20
        let noise = Self.render(colour, rate: rate, from: 2 * Int64(rate), frames: seconds * rate)
        for channel in 0..<2 {
            var psd = [Double](repeating: 0, count: size / 2)
            var start = 0
            while start + size <= seconds * rate {
                var re = (0..<size).map { Double(noise[(start + $0) * 2 + channel]) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
                var im = [Double](repeating: 0, count: size)
                Spectrum.fft(&re, &im)
                for k in 0..<size / 2 { psd[k] += re[k] * re[k] + im[k] * im[k] }
                start += size / 2
            }
            let under = Int(20 * Double(size) / Double(rate))
            let share = psd[0...under].reduce(0, +) / psd.reduce(0, +)
            #expect(share <= 0.10, "\(colour) at \(rate) Hz, channel \(channel): \(share * 100) % of its power under 20 Hz")
            // The high-pass leaves the colour itself: the band from 50 to 100 Hz still carries power.
            let band = Int(50 * Double(size) / Double(rate))...Int(100 * Double(size) / Double(rate))
            #expect(psd[band].reduce(0, +) / psd.reduce(0, +) > (colour == .white ? 0.001 : 0.01))
        }
    }

    @Test(arguments: NoiseColour.allCases)
    func startedAnywhereGivesTheSameFrames(colour: NoiseColour) {
        let rate = 8000
        let whole = Self.render(colour, rate: rate, frames: 20 * rate, block: 1000)
        // Inside a chunk, on a chunk's first frame, one before it, and across a chunk's edge.
        for start in [Int64(1), 12_345, 32_000, 31_999, 63_990] {
            let part = Self.render(colour, rate: rate, from: start, frames: 9000, block: 777)
            #expect(part == Array(whole[Int(start) * 2 ..< (Int(start) + 9000) * 2]), "\(colour) from frame \(start)")
        }
    }

    @Test(arguments: NoiseColour.allCases)
    func channelsAreDecorrelatedAndSeedsDiffer(colour: NoiseColour) {
        let rate = 8000, n = 10 * rate
        let noise = Self.render(colour, rate: rate, from: Int64(rate), frames: n)
        func correlation(_ a: [Double], _ b: [Double]) -> Double {
            let ma = a.reduce(0, +) / Double(a.count), mb = b.reduce(0, +) / Double(b.count)
            var sab = 0.0, saa = 0.0, sbb = 0.0
            for i in a.indices { sab += (a[i] - ma) * (b[i] - mb); saa += (a[i] - ma) * (a[i] - ma); sbb += (b[i] - mb) * (b[i] - mb) }
            return sab / (saa * sbb).squareRoot()
        }
        let left = (0..<n).map { Double(noise[$0 * 2]) }, right = (0..<n).map { Double(noise[$0 * 2 + 1]) }
        #expect(abs(correlation(left, right)) < 0.1, "\(colour): left and right correlate")
        // One chunk does not come back as the next: the noise never repeats.
        let chunk = 4 * rate
        let first = Array(left[0..<chunk]), second = Array(left[chunk..<2 * chunk])
        #expect(abs(correlation(first, second)) < 0.1)
        let other = Self.render(colour, rate: rate, from: Int64(rate), frames: n, seed: 8)
        #expect(other != noise)
    }
}

@Suite struct GeneratedBedTests {
    @Test func generatedBedsCrossfadeAndNeedNoSound() throws {
        var session = Session(name: "noise", segments: [PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 6000, 0))],
                              settle: .seconds(10), closing: .seconds(10))
        var pink = AmbienceBed(sound: SoundRef("pink noise"), levelLUFS: -30)
        pink.generator = .pink
        var brown = AmbienceBed(sound: SoundRef("brown noise"), levelLUFS: -30)
        brown.generator = .brown
        session.ambience = [pink, brown]
        session.ambienceCrossfade = .seconds(4)
        #expect(session.soundsUsed.isEmpty)
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, channels: 2, length: .duration(.seconds(60)),
                                                                           layers: [.ambience]), sounds: [:])
        #expect(plan.soundsUsed.isEmpty)
        #expect(plan.beds.map(\.generator) == [.pink, .brown])
        #expect(plan.beds[0].endFrame - plan.beds[1].startFrame == 4 * 8000)
        let mix = renderMix(plan, block: 1000)
        // Both beds sound, on either side of the join, and the mix from any frame is the same.
        func rms(_ range: Range<Int>) -> Double {
            (range.map { Double(mix[$0]) * Double(mix[$0]) }.reduce(0, +) / Double(range.count)).squareRoot()
        }
        #expect(rms(10 * 8000 * 2 ..< 20 * 8000 * 2) > 0.001)
        #expect(rms(40 * 8000 * 2 ..< 45 * 8000 * 2) > 0.001)
        let mixer = Mixer(plan: plan, assets: MixAssets(sounds: [:]), startFrame: 29 * 8000 + 17)
        var part = [Float](repeating: 0, count: 8000 * 2 * 2)
        part.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 16000) }
        #expect(part == Array(mix[(29 * 8000 + 17) * 2 ..< (31 * 8000 + 17) * 2]))
    }
}
