import Foundation

/// A colour of noise for an ambience bed (`generator:`).
public enum NoiseColour: String, CaseIterable, Hashable, Sendable {
    /// Equal power per hertz: a flat spectrum.
    case white
    /// Equal power per octave: −3 dB per octave.
    case pink
    /// Red or Brownian: −6 dB per octave.
    case brown
    /// Equal loudness: the inverse of the A-weighting curve (IEC 61672-1) below 1 kHz, flat above.
    /// Its power response is G(f)² = (f² + 107.7²)(f² + 737.9²) / (f² + 20.6²)², A-weighting's own
    /// corner frequencies with its four zeros at 0 Hz moved onto its 20.6-Hz poles (so the bass
    /// boost levels off below 20 Hz instead of growing without end) and its 12.2-kHz roll-off left
    /// out (so the treble is not lifted into a hiss): +27.6 dB at 50 Hz and +14.6 dB at 100 Hz
    /// against 1 kHz, as a quiet sound must be to sound as loud as one at 1 kHz.
    case grey

    /// The spectrum's slope in decibels per octave, for the colours with one; nil for grey, whose
    /// shape is `decibels(atHertz:)`.
    public var slopeDecibelsPerOctave: Double? {
        switch self {
        case .white: 0
        case .pink: -3
        case .brown: -6
        case .grey: nil
        }
    }

    /// The corner of the high-pass every colour but white goes through, in hertz: two first-order
    /// sections (−12 dB/octave below it), so that at most 10 % of the noise's power is under 20 Hz,
    /// which no speaker plays (without it, 81 % of brown noise's power was there). At 35 Hz, by
    /// the definitions below: brown 4.9 %, grey 6.3 %, pink 0.3 % (30 Hz left grey at 8.9 %).
    public static let highPassHertz = 35.0

    /// Whether the colour goes through the high-pass (white has next to no power under 20 Hz).
    public var isHighPassed: Bool { self != .white }

    /// The colour's power spectrum at `hertz` by its definition, with the high-pass, in decibels
    /// against 1 kHz.
    public func decibels(atHertz f: Double) -> Double {
        func highPass(_ f: Double) -> Double {
            isHighPassed ? 20 * log10(f * f / (f * f + Self.highPassHertz * Self.highPassHertz)) : 0
        }
        if let slope = slopeDecibelsPerOctave { return slope * log2(f / 1000) + highPass(f) - highPass(1000) }
        func grey(_ f: Double) -> Double {
            let f2 = f * f
            return 10 * log10(f2 + 107.7 * 107.7) + 10 * log10(f2 + 737.9 * 737.9) - 20 * log10(f2 + 20.6 * 20.6) + highPass(f)
        }
        return grey(f) - grey(1000)
    }

    /// The integrated loudness of the noise at unit gain in stereo, in LUFS, as measured
    /// (ITU-R BS.1770 through libebur128, 30 s at 44.1 and 48 kHz; NoiseLoudnessTests): the bed's gain for a level is the level less this.
    public var loudnessLUFS: Double {
        switch self {
        case .white: 1.36
        case .pink: -6.1
        case .brown: -4.45
        case .grey: 0.55
        }
    }
}

/// Seeded noise of a colour, never repeating, each channel its own, whose value at any frame is a
/// function of the frame: white noise from a counter-based generator keyed by the seed, the
/// channel and the frame, through filters that start from rest at the start of each fixed chunk,
/// run over a warm-up of `warmUpFrames` before it. The filters' memory of anything before the
/// warm-up has faded below a float's precision, so the chunks join without a seam, and a source
/// started at any frame gives what one started at 0 gives.
public final class NoiseSource: GeneratedSource {
    public let colour: NoiseColour
    public let rate: Int
    public let channels: Int
    /// Frames per chunk and frames of warm-up before each: 4 s and 1 s at the rate.
    public let chunkFrames: Int64
    public let warmUpFrames: Int64
    private let seed: UInt64
    /// Per section: zero and pole coefficients (y = x − z·x₋₁ + p·y₋₁); per channel its state.
    private let zeros: [Double]
    private let poles: [Double]
    private let scale: Double
    /// The filters' memory, section by section, a channel to a lane (a mono source's second
    /// lane runs a channel it does not write): the last input of each fourth section (the
    /// others' is the last output of the one before) and every section's last output.
    private let lastIn: UnsafeMutablePointer<SIMD2<Double>>
    private let lastOut: UnsafeMutablePointer<SIMD2<Double>>
    /// A stretch of samples between the sections, a channel to a lane.
    private let stretch: UnsafeMutablePointer<SIMD2<Double>>
    private var next: Int64 = -1

    public init(colour: NoiseColour, rate: Int, channels: Int, seed: UInt64) {
        self.colour = colour
        self.rate = rate
        self.channels = channels
        self.seed = seed
        chunkFrames = Int64(rate) * 4
        warmUpFrames = Int64(rate)
        var zeros: [Double] = [], poles: [Double] = []
        func coefficient(_ hertz: Double) -> Double { exp(-2 * .pi * hertz / Double(rate)) }
        switch colour {
        case .white: break
        case .pink:
            // A pole every octave from 5 Hz and a zero half an octave above it: −6 dB/octave over
            // half of each octave, −3 dB/octave on average.
            var f = 5.0
            while f < Double(rate) / 2 {
                poles.append(coefficient(f))
                zeros.append(coefficient(f * 2.0.squareRoot()))
                f *= 2
            }
        case .brown:
            // A leaky integrator with its corner at 5 Hz, below the audible band.
            poles.append(coefficient(5))
            zeros.append(0)
        case .grey:
            // Two sections: the 20.6-Hz pole twice, against the zeros at 107.7 and 737.9 Hz.
            poles += [coefficient(20.6), coefficient(20.6)]
            zeros += [coefficient(107.7), coefficient(737.9)]
        }
        if colour.isHighPassed {
            // The high-pass: a zero at 0 Hz and a pole at the corner, twice.
            poles += [coefficient(NoiseColour.highPassHertz), coefficient(NoiseColour.highPassHertz)]
            zeros += [1, 1]
        }
        // Unit gain at 1 kHz: the colours agree there, and the bed's level sets the rest.
        let w = 2 * Double.pi * 1000 / Double(rate)
        var gain = 1.0
        for (z, p) in zip(zeros, poles) {
            let num = (1 - z * cos(w)) * (1 - z * cos(w)) + z * sin(w) * z * sin(w)
            let den = (1 - p * cos(w)) * (1 - p * cos(w)) + p * sin(w) * p * sin(w)
            gain *= (num / den).squareRoot()
        }
        scale = 1 / gain
        // Sections that pass their input through ahead of the rest, so the sections come in fours:
        // white noise is never −0, and x − 0·x₋₁ + 0·y₋₁ is x for every other x, so they change no
        // sample.
        let passing = (4 - zeros.count % 4) % 4
        self.zeros = Array(repeating: 0, count: passing) + zeros
        self.poles = Array(repeating: 0, count: passing) + poles
        precondition((1...2).contains(channels), "a noise source has one or two channels")
        let memory = max(1, self.poles.count)
        lastIn = .allocate(capacity: memory)
        lastIn.initialize(repeating: .zero, count: memory)
        lastOut = .allocate(capacity: memory)
        lastOut.initialize(repeating: .zero, count: memory)
        stretch = .allocate(capacity: Self.stretchFrames)
    }

    deinit {
        lastIn.deallocate()
        lastOut.deallocate()
        stretch.deallocate()
    }

    /// The frames of one channel that go through the sections at a time.
    private static let stretchFrames = 1024

    /// White noise, uniform in −1…1, for `channel` at `frame`.
    @inline(__always)
    private func white(_ frame: Int64, _ channel: Int) -> Double {
        var z = seed &+ UInt64(bitPattern: frame) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(channel + 1) &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) * (2.0 / 9_007_199_254_740_992) - 1
    }

    /// Runs frames `frame ..< frame + n` through the filters and writes them into `out`
    /// (interleaved) when given: a stretch at a time, both channels side by side as the lanes of
    /// one vector, through four sections at a time. A section's output waits on its own last, so
    /// four sections in one loop keep four of those waits going at once where one frame through
    /// every section in turn waited on each; every sample goes through the same operations in the
    /// same order, in its lane.
    private func run(from frame: Int64, count n: Int, into out: UnsafeMutablePointer<Float>?) {
        let sections = poles.count, channels = self.channels
        var done = 0
        while done < n {
            let m = min(Self.stretchFrames, n - done)
            for j in 0..<m {
                let at = frame + Int64(done + j)
                stretch[j] = SIMD2(white(at, 0), channels == 2 ? white(at, 1) : 0)
            }
            for k in stride(from: 0, to: sections, by: 4) { filter(frames: m, first: k) }
            if let out {
                for j in 0..<m {
                    let y = stretch[j] * scale
                    for c in 0..<channels { out[(done + j) * channels + c] = Float(y[c]) }
                }
            }
            done += m
        }
    }

    /// Runs the stretch's first `frames` through the four sections from section `first`, both
    /// channels at once (the lanes): y = x − z·x₋₁ + p·y₋₁, the memory held in locals for the run.
    private func filter(frames: Int, first k: Int) {
        let z0 = SIMD2(repeating: zeros[k]), z1 = SIMD2(repeating: zeros[k + 1])
        let z2 = SIMD2(repeating: zeros[k + 2]), z3 = SIMD2(repeating: zeros[k + 3])
        let p0 = SIMD2(repeating: poles[k]), p1 = SIMD2(repeating: poles[k + 1])
        let p2 = SIMD2(repeating: poles[k + 2]), p3 = SIMD2(repeating: poles[k + 3])
        // A section's last input is the last output of the section before it.
        var in0 = lastIn[k], out0 = lastOut[k], out1 = lastOut[k + 1], out2 = lastOut[k + 2], out3 = lastOut[k + 3]
        let stretch = self.stretch
        for j in 0..<frames {
            let x = stretch[j]
            let y0 = x - z0 * in0 + p0 * out0
            let y1 = y0 - z1 * out0 + p1 * out1
            let y2 = y1 - z2 * out1 + p2 * out2
            let y3 = y2 - z3 * out2 + p3 * out3
            in0 = x; out0 = y0; out1 = y1; out2 = y2; out3 = y3
            stretch[j] = y3
        }
        lastIn[k] = in0
        (lastOut[k], lastOut[k + 1], lastOut[k + 2], lastOut[k + 3]) = (out0, out1, out2, out3)
    }

    /// Starts the filters from rest at the warm-up before `frame`'s chunk and runs them up to it.
    private func restart(at frame: Int64) {
        lastIn.update(repeating: .zero, count: max(1, poles.count))
        lastOut.update(repeating: .zero, count: max(1, poles.count))
        let from = max(0, frame / chunkFrames * chunkFrames - warmUpFrames)
        run(from: from, count: Int(frame - from), into: nil)
    }

    /// Writes frames `start ..< start + frameCount` of the noise into `out`, interleaved: a
    /// chunk's run at a time.
    public func render(into out: UnsafeMutablePointer<Float>, from start: Int64, frameCount: Int) {
        var i = 0
        while i < frameCount {
            let frame = start + Int64(i)
            if frame != next || frame % chunkFrames == 0 { restart(at: frame) }
            let n = Int(min(Int64(frameCount - i), (frame / chunkFrames + 1) * chunkFrames - frame))
            run(from: frame, count: n, into: out + i * channels)
            i += n
            next = frame + Int64(n)
        }
    }
}
