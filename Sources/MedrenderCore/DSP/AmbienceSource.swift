import Foundation

/// An ambience generated as it plays (`generator:` in a bed).
public enum AmbienceKind: String, CaseIterable, Hashable, Sendable {
    /// Rain: a band-limited hiss with drops, its intensity drifting over minutes and in gusts.
    case rain
    /// Ocean surf: waves every 6–14 s, each of its own size, under a sea state that drifts.
    case ocean
    /// A stream: babbling water whose flow drifts over minutes.
    case stream
    /// Wind: a moving band of noise that rises and falls in gusts.
    case wind

    /// The integrated loudness of the ambience at unit gain in stereo at `rate`, in LUFS: the
    /// bed's gain for a level is the level less this. Its noises are shaped in bands of fixed
    /// width in hertz, so at a higher rate less of their power falls in them: the figure moves by
    /// up to 12 LU from 8 to 96 kHz. Measured (ITU-R BS.1770 through libebur128, 5 or 10 minutes
    /// of each, the rain's over four seeds; GeneratedAmbienceLoudnessTests) at the rates below,
    /// interpolated on the octave between. The wind's gusts move ten minutes' loudness by ±1.5 LU
    /// from one seed to another, the other beds' by ±0.5.
    public func loudnessLUFS(atRate rate: Int) -> Double {
        let table = Self.measuredLoudness[self]!
        let octave = log2(Double(rate))
        guard let upper = table.firstIndex(where: { log2(Double($0.rate)) >= octave }) else { return table.last!.lufs }
        guard upper > 0 else { return table[0].lufs }
        let a = table[upper - 1], b = table[upper]
        let t = (octave - log2(Double(a.rate))) / (log2(Double(b.rate)) - log2(Double(a.rate)))
        return a.lufs + t * (b.lufs - a.lufs)
    }

    /// The loudness measured at unit gain, by rate (ascending).
    static let measuredLoudness: [AmbienceKind: [(rate: Int, lufs: Double)]] = [
        .rain: [(8000, -4.0), (11025, -4.6), (16000, -5.9), (22050, -7.3), (24000, -7.7), (32000, -8.9), (44100, -9.9), (48000, -10.1),
                (88200, -9.3), (96000, -8.9)],
        .ocean: [(8000, -10.5), (11025, -12.1), (16000, -14.0), (22050, -15.5), (24000, -15.9), (32000, -17.3), (44100, -18.7),
                 (48000, -19.1), (88200, -21.8), (96000, -22.2)],
        .stream: [(8000, -16.3), (11025, -16.8), (16000, -17.7), (22050, -18.4), (24000, -18.5), (32000, -19.1), (44100, -19.6),
                  (48000, -19.6), (88200, -19.0), (96000, -18.7)],
        .wind: [(8000, -13.6), (11025, -14.5), (16000, -15.8), (22050, -17.1), (24000, -17.4), (32000, -18.6), (44100, -20.0),
                (48000, -20.4), (88200, -23.0), (96000, -23.3)],
    ]

    /// The warm-up before a chunk: 46 time constants of the ambience's slowest filter (rain: its
    /// drops' 4-ms resonator; ocean: its 110-Hz rumble, two poles; a stream: its bubbles' 12-ms
    /// resonator; wind: its whistle's band-pass, 2 ms), rounded up.
    public var warmUp: SessionTime {
        switch self {
        case .rain: SessionTime(milliseconds: 200)
        case .ocean: SessionTime(milliseconds: 100)
        case .stream: SessionTime(milliseconds: 600)
        case .wind: SessionTime(milliseconds: 120)
        }
    }

    /// The band the ambience's envelope keeps to, in decibels against its long-term RMS: how far
    /// its own variation (swells, gusts, a shower) takes it above and below its level.
    public var levelBandDecibels: ClosedRange<Double> {
        switch self {
        case .rain: -4...3
        case .ocean: -12...8
        case .stream: -4...3
        case .wind: -10...7
        }
    }
}

/// Rain, ocean surf, a stream or wind, generated from a seed as it plays: never repeating, any
/// length, and a function of the frame, so a source started at any frame gives what one started
/// at 0 gives.
///
/// Two things make the sound. Its texture is white noise (a counter-based generator keyed by the
/// seed and the frame, a hash every two frames, 16 bits an ear a frame) and random events (drops,
/// bubbles) through filters that start from rest at the start of each chunk (4 s; the ocean's
/// and the rain's 2 s, two rendered side by side as the lanes of one vector), run over a warm-up before it, as `NoiseSource` does: 46 of
/// the slowest filter's time constants (`warmUp`), so what the filters remember from before the
/// warm-up is under 10⁻²⁰ and a chunk starts where its neighbour left off. Its slow variation
/// is a closed-form function of time: value noise (seeded knots, smoothly joined) at several
/// unrelated periods, and for the ocean a table of waves whose times are a running sum of
/// seeded 6–14-s intervals, so no period ever comes back. The variation is worked out every
/// `controlFrames` frames and its amplitude, the envelope, joined linearly between them.
public final class AmbienceSource: GeneratedSource {
    public let kind: AmbienceKind
    public let rate: Int
    public let channels: Int
    public let chunkFrames: Int64
    public let warmUpFrames: Int64
    /// Frames between two evaluations of the slow variation: 64, and 128 for the ocean, whose
    /// variation (its swells) is the slowest and whose evaluations (four swells and a pole a
    /// point, both ears, the foam's too) cost the most.
    public let controlFrames: Int64
    private let seed: UInt64

    /// What the slow variation sets at one control point.
    struct Control {
        /// Amplitude, 0…1.3.
        var envelope: Double = 0
        /// Per-frame chance of an event (a drop, a bubble).
        var eventChance: Double = 0
        /// A second gain (the ocean's foam, the wind's whistle), 0…1.
        var detail: Double = 0
        /// Filter coefficients (the low-pass pole, two state-variable filters' g).
        var pole: Double = 0
        var g1: Double = 0
        var g2: Double = 0
    }

    /// One channel's filter memory.
    struct State {
        var hpIn = 0.0, hpOut = 0.0, lp1 = 0.0, lp2 = 0.0, rumble = 0.0, rumble2 = 0.0
        var aLow = 0.0, aBand = 0.0, bLow = 0.0, bBand = 0.0
        var r1a = 0.0, r1b = 0.0, r2a = 0.0, r2b = 0.0
        var controlIndex: Int64 = .min
        var here = Control(), next = Control()
    }

    private var states: [State]
    private var next: Int64 = -1
    /// Ocean: wave crest times in seconds and sizes, extended as far as asked.
    private var waveTimes: [Double] = []
    private var waveSizes: [Double] = []
    /// Ocean: the right ear's delay and the foam's after the body, in control points.
    private let rightEarControls: Int64, foamControls: Int64
    /// Ocean: swells at control points, by index modulo `swellSlots` (a power of two over a chunk
    /// and the right ear's delay and the foam's together, so both chunks of a pair keep theirs).
    /// Raw memory: an array, a stored property of a class, would be checked for exclusive access
    /// at every ask.
    private let swellCache: UnsafeMutablePointer<(index: Int64, value: Double)>
    private let swellSlots: Int
    /// The knots `smooth` last joined, by stream modulo `knotSlots`: a knot lasts seconds, and
    /// the slow variation asks for the same two every control point in between. Raw memory, as
    /// `swellCache`.
    private let knotCache: UnsafeMutablePointer<Knots>
    private static let knotSlots = 32
    private struct Knots {
        var stream: UInt64 = .max
        var index: Int64 = .min
        var a = 0.0, b = 0.0
    }
    /// Whether the ambience is rendered two chunks side by side (`renderPair`): the ocean and the rain.
    private var paired: Bool { kind == .ocean || kind == .rain }
    /// The ocean and the rain: two neighbouring chunks of both ears (`renderPair`), which pair
    /// they are, and the warm-up before each chunk in whole control intervals.
    private let pairBuffer: UnsafeMutablePointer<SIMD4<Float>>
    private var cachedPair: Int64 = .min
    private let pairWarmUpFrames: Int64
    /// Fixed filter coefficients at the rate.
    private let highPass: Double, lowPass: Double, rumblePole: Double
    /// The rain's hiss tilts down above this pole (−6 dB/octave from 1.8 kHz), as rain on leaves does.
    private let tilt: Double
    private let resonator1: (Double, Double), resonator2: (Double, Double)

    public init(kind: AmbienceKind, rate: Int, channels: Int, seed: UInt64) {
        self.kind = kind
        self.rate = rate
        self.channels = channels
        self.seed = seed
        let controlFrames: Int64 = kind == .ocean ? 128 : 64
        self.controlFrames = controlFrames
        // The ocean's and the rain's chunks are rendered two side by side, in whole control
        // intervals: the ocean's 2 s, the rain's 1 s (its warm-up is short, and the pair's 0.7 MiB
        // at 48 kHz less is a render's peak memory less).
        let paired: Int64? = [AmbienceKind.ocean: 2000, .rain: 1000][kind]
        chunkFrames = paired.map { max(1, SessionTime(milliseconds: $0).frame(atRate: rate) / controlFrames) * controlFrames }
            ?? SessionTime(milliseconds: 4000).frame(atRate: rate)
        warmUpFrames = kind.warmUp.frame(atRate: rate)
        pairWarmUpFrames = (warmUpFrames + controlFrames - 1) / controlFrames * controlFrames
        pairBuffer = .allocate(capacity: kind == .ocean || kind == .rain ? Int(chunkFrames) : 0)
        states = Array(repeating: State(), count: channels)
        /// A delay in whole control points, the nearest to `milliseconds`.
        func controls(_ milliseconds: Int64) -> Int64 {
            (SessionTime(milliseconds: milliseconds).frame(atRate: rate) + controlFrames / 2) / controlFrames
        }
        rightEarControls = controls(350)
        foamControls = controls(600)
        var slots = 1
        while slots <= Int(chunkFrames / controlFrames + rightEarControls + foamControls) + 2 { slots <<= 1 }
        swellSlots = kind == .ocean ? slots : 1
        swellCache = .allocate(capacity: swellSlots)
        swellCache.initialize(repeating: (.min, 0), count: swellSlots)
        knotCache = .allocate(capacity: Self.knotSlots)
        knotCache.initialize(repeating: Knots(), count: Self.knotSlots)
        tilt = exp(-2 * .pi * min(1800, 0.45 * Double(rate)) / Double(rate))
        func pole(_ hertz: Double) -> Double { exp(-2 * .pi * min(hertz, 0.45 * Double(rate)) / Double(rate)) }
        /// A two-pole resonator at `hertz` ringing for about `seconds`: (2r cos w, r²).
        func resonator(_ hertz: Double, _ seconds: Double) -> (Double, Double) {
            let r = exp(-1 / (seconds * Double(rate)))
            let w = 2 * Double.pi * min(hertz, 0.42 * Double(rate)) / Double(rate)
            return (2 * r * cos(w), r * r)
        }
        switch kind {
        case .rain:
            highPass = pole(250); lowPass = pole(6500); rumblePole = pole(140)
            resonator1 = resonator(2900, 0.004); resonator2 = resonator(4700, 0.0025)
        case .ocean:
            highPass = pole(1400); lowPass = pole(5000); rumblePole = pole(110)
            resonator1 = (0, 0); resonator2 = (0, 0)
        case .stream:
            highPass = pole(2500); lowPass = pole(7000); rumblePole = pole(180)
            resonator1 = resonator(850, 0.012); resonator2 = resonator(1500, 0.008)
        case .wind:
            highPass = pole(60); lowPass = pole(4000); rumblePole = pole(90)
            resonator1 = (0, 0); resonator2 = (0, 0)
        }
    }

    deinit {
        swellCache.deallocate()
        knotCache.deallocate()
        pairBuffer.deallocate()
    }

    // MARK: Seeded values

    @inline(__always)
    private func hash(_ stream: UInt64, _ index: Int64) -> UInt64 {
        var z = seed &+ UInt64(bitPattern: index) &* 0x9E37_79B9_7F4A_7C15 &+ (stream &+ 1) &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0…1 for `stream` at `index`.
    @inline(__always)
    private func uniform(_ stream: UInt64, _ index: Int64) -> Double { Double(hash(stream, index) >> 11) * (1.0 / 9_007_199_254_740_992) }

    /// Value noise in −1…1: seeded knots every `period` seconds, joined by a smoothstep.
    private func smooth(_ t: Double, period: Double, stream: UInt64) -> Double {
        let x = t / period
        let k = x.rounded(.down)
        let f = x - k
        let index = Int64(k)
        let slot = knotCache + (Int(truncatingIfNeeded: stream) & (Self.knotSlots - 1))
        if slot.pointee.stream != stream || slot.pointee.index != index {
            slot.pointee = Knots(stream: stream, index: index, a: 2 * uniform(stream, index) - 1, b: 2 * uniform(stream, index + 1) - 1)
        }
        let a = slot.pointee.a, b = slot.pointee.b
        return a + (b - a) * f * f * (3 - 2 * f)
    }

    /// A weighted sum of value noise at unrelated periods, in −1…1.
    private func drift(_ t: Double, _ layers: [(period: Double, weight: Double)], stream: UInt64) -> Double {
        var sum = 0.0, weights = 0.0
        for (i, layer) in layers.enumerated() {
            sum += layer.weight * smooth(t, period: layer.period, stream: stream &+ UInt64(i) &* 7919)
            weights += layer.weight
        }
        return sum / weights
    }

    // MARK: The slow variation

    /// Makes sure the ocean's wave table reaches past `t` seconds.
    private func extendWaves(to t: Double) {
        while (waveTimes.last ?? -20) < t + 40 {
            let k = Int64(waveTimes.count)
            // An interval of 6–14 s, any length as likely: leaning to 10 s (the mean of two
            // draws from 8–12 s) left the swell correlated 0.57 with itself two waves later.
            let interval = 6 + 8 * uniform(101, k)
            let crest = (waveTimes.last ?? -10 * uniform(103, 0)) + interval
            // A size of its own, under a sea state that drifts over minutes.
            let seaState = 0.8 + 0.2 * drift(crest, [(173, 1), (509, 1)], stream: 104)
            waveTimes.append(crest)
            waveSizes.append(seaState * (0.45 + 0.55 * pow(uniform(105, k), 0.8)))
        }
    }

    /// The ocean's swell at `t` seconds: the sum of the waves near it, each building up over
    /// about 2.4 s to its crest and washing back over about 3 s.
    private func swell(_ t: Double) -> Double {
        extendWaves(to: t)
        // The first wave whose crest is after t − 25 s (the wash of older waves has died away).
        var lo = 0, hi = waveTimes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if waveTimes[mid] < t - 25 { lo = mid + 1 } else { hi = mid }
        }
        var sum = 0.0
        var k = lo
        while k < waveTimes.count, waveTimes[k] < t + 10 {
            let x = t - waveTimes[k]
            sum += waveSizes[k] * (x < 0 ? exp(-(x / 2.4) * (x / 2.4)) : exp(-x / 3))
            k += 1
        }
        return sum
    }

    /// The ocean's swell at control point `index`, kept for later asks: the right ear and the
    /// foam ask again for what the left ear's body asked a little before (a cache: the swell is a
    /// function of the index, whichever asks first).
    private func swell(atControl index: Int64) -> Double {
        let slot = Int(index & Int64(swellSlots - 1))
        if swellCache[slot].index == index { return swellCache[slot].value }
        let value = swell(Double(index * controlFrames) / Double(rate))
        swellCache[slot] = (index, value)
        return value
    }

    /// The state-variable filter's g for a centre at `hertz`.
    private func svfG(_ hertz: Double) -> Double { tan(.pi * min(hertz, 0.45 * Double(rate)) / Double(rate)) }

    /// The slow variation at control point `index` for `channel`.
    private func control(_ index: Int64, channel: Int) -> Control {
        let t = Double(index * controlFrames) / Double(rate)
        var c = Control()
        switch kind {
        case .rain:
            // Intensity drifts over minutes, a shower building and easing and never quite stopping,
            // and comes and goes in gusts of a few seconds: with the drift alone, the rain 20 s
            // on sounded as it does now (its envelope correlated 0.80 with itself at that lag).
            let slow = drift(t, [(47, 0.3), (131, 0.4), (373, 0.3)], stream: 1)
            let gusts = drift(t, [(3.1, 0.3), (5.3, 0.4), (8.9, 0.3)], stream: 5)
            let intensity = min(1, max(0.1, 0.55 + 0.5 * slow + 0.6 * gusts))
            c.envelope = 0.6 + 0.4 * intensity
            c.eventChance = (300 + 2600 * intensity) / Double(rate)
        case .ocean:
            // The right ear hears each wave 0.35 s after the left; the foam breaks 0.6 s after
            // the wave's body (both to the nearest control point).
            let here = index - (channel == 1 ? rightEarControls : 0)
            let s = swell(atControl: here)
            c.envelope = 0.2 + 0.8 * s
            c.detail = min(1, max(0, swell(atControl: here - foamControls) - 0.35))
            c.pole = exp(-2 * .pi * min(260 + 1300 * s, 0.45 * Double(rate)) / Double(rate))
        case .stream:
            let flow = 0.78 + 0.22 * drift(t, [(29, 0.3), (97, 0.4), (263, 0.3)], stream: 11)
            c.envelope = flow
            c.eventChance = (12 + 30 * flow) / Double(rate)
            // The babble: two bands wandering fast, each ear its own.
            let ch = UInt64(channel) &* 1000
            c.g1 = svfG(650 + 260 * smooth(t, period: 0.083, stream: 12 &+ ch) + 160 * smooth(t, period: 0.31, stream: 13 &+ ch))
            c.g2 = svfG(1700 + 500 * smooth(t, period: 0.061, stream: 14 &+ ch) + 300 * smooth(t, period: 0.23, stream: 15 &+ ch))
            c.detail = 0.55 + 0.45 * smooth(t, period: 0.047, stream: 16 &+ ch)
        case .wind:
            // Gusts: value noise at 4 to 70 s, the right ear's 0.6 s later.
            let at = t - (channel == 1 ? 0.6 : 0)
            let gust = min(1, max(0, 0.5 + 0.8 * drift(at, [(3.7, 0.2), (9.1, 0.3), (23, 0.3), (71, 0.2)], stream: 21)))
            let g = pow(gust, 1.5)
            c.envelope = 0.25 + 0.75 * g
            c.g1 = svfG(220 + 750 * g)
            c.g2 = svfG(900 + 500 * g)
            c.detail = g
        }
        return c
    }

    /// The envelope, the amplitude that the slow variation gives the sound, at `frame` in
    /// `channel`: what `render` multiplies its texture by.
    public func envelope(atFrame frame: Int64, channel: Int = 0) -> Double {
        let q = Self.floorDiv(frame, controlFrames)
        let a = control(q, channel: channel).envelope, b = control(q + 1, channel: channel).envelope
        return a + (b - a) * Double(frame - q * controlFrames) / Double(controlFrames)
    }

    @inline(__always)
    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    // MARK: The texture

    /// White noise in −1…1 at `frame` in `channel`: see `whitePair`.
    @inline(__always)
    private func white(_ frame: Int64, _ channel: Int, _ stream: UInt64) -> Double {
        let pair = whitePair(hash(stream &* 16 &+ UInt64(channel >> 1), frame >> 1), odd: frame & 1 != 0)
        return Double(pair[channel & 1])
    }

    /// White noise in both channels of a pair at a frame, from the hash of its two frames
    /// (`frame >> 1`): each frame takes 32 of the hash's 64 bits (the odd frame the high ones), each
    /// ear 16 of them, as (k + ½)/32768 for k in −32768…32767, uniform and symmetric in −1…1. One
    /// hash every two stereo frames: the hash was the larger part of the ocean's instructions.
    @inline(__always)
    private func whitePair(_ h: UInt64, odd: Bool) -> SIMD2<Float> {
        let bits = UInt32(truncatingIfNeeded: odd ? h >> 32 : h)
        let k = SIMD2<Float>(Float(Int16(truncatingIfNeeded: bits)), Float(Int16(truncatingIfNeeded: bits >> 16)))
        return (k + 0.5) * (1.0 / 32768)
    }

    /// Makes `s.here` and `s.next` the controls at `q` and `q + 1` for `channel`, unless they are.
    @inline(__always)
    private func refreshControl(_ s: inout State, _ q: Int64, channel: Int) {
        guard s.controlIndex != q else { return }
        s.here = s.controlIndex == q - 1 ? s.next : control(q, channel: channel)
        s.next = control(q + 1, channel: channel)
        s.controlIndex = q
    }

    /// One frame of `channel`, its filters `s` stepped. The caller holds the channel's state in a
    /// local for a run of frames, so the frame loop touches no stored property it writes.
    @inline(__always)
    private func step(_ frame: Int64, _ ch: Int, _ s: inout State) -> Double {
        let q = Self.floorDiv(frame, controlFrames)
        refreshControl(&s, q, channel: ch)
        let c = s.here
        let envelope = c.envelope + (s.next.envelope - c.envelope) * Double(frame - q * controlFrames) / Double(controlFrames)
        let x = white(frame, ch, 0)
        let hp = noiseFilters(x, &s)
        var out: Double
        switch kind {
        case .rain, .ocean:
            preconditionFailure("the \(kind) renders two chunks of both ears at once, in renderPair")
        case .stream:
            // The babble: two state-variable band-passes wandering, under a fast flutter.
            out = c.detail * (Self.bandPass(x, g: c.g1, q: 2.5, &s.aLow, &s.aBand) + 0.6 * Self.bandPass(x, g: c.g2, q: 3, &s.bLow, &s.bBand))
            var impulse = 0.0
            if uniform(31, frame &* 4 &+ Int64(ch)) < c.eventChance {
                impulse = (0.3 + 0.7 * uniform(32, frame &* 4 &+ Int64(ch))) * (uniform(33, frame &* 4 &+ Int64(ch)) < 0.5 ? -1 : 1)
            }
            let r1 = impulse + resonator1.0 * s.r1a - resonator1.1 * s.r1b
            s.r1b = s.r1a; s.r1a = r1
            let r2 = impulse + resonator2.0 * s.r2a - resonator2.1 * s.r2b
            s.r2b = s.r2a; s.r2a = r2
            s.lp1 = hp + lowPass * (s.lp1 - hp)
            out += 0.02 * (r1 + r2) + 0.12 * s.lp1
        case .wind:
            s.lp1 = hp + lowPass * (s.lp1 - hp)
            out = Self.bandPass(s.lp1, g: c.g1, q: 0.8, &s.aLow, &s.aBand)
                + 0.12 * c.detail * Self.bandPass(x, g: c.g2, q: 6, &s.bLow, &s.bBand) + 1.5 * s.rumble2
        }
        return envelope * out
    }

    /// The filters every ambience but the ocean runs its white noise `x` through, stepped: a
    /// one-pole high-pass (y = p(y₋₁ + x − x₋₁)), whose output it returns, and the rumble's two
    /// one-pole low-passes (y = x + p(y₋₁ − x)).
    @inline(__always)
    private func noiseFilters(_ x: Double, _ s: inout State) -> Double {
        let hp = highPass * (s.hpOut + x - s.hpIn)
        s.hpIn = x; s.hpOut = hp
        s.rumble = x + rumblePole * (s.rumble - x)
        s.rumble2 = s.rumble + rumblePole * (s.rumble2 - s.rumble)
        return hp
    }

    /// A state-variable band-pass (trapezoidal, stable however its centre moves), normalized to
    /// unit gain at the centre.
    @inline(__always)
    private static func bandPass(_ x: Double, g: Double, q: Double, _ ic1: inout Double, _ ic2: inout Double) -> Double {
        let k = 1 / q
        let a1 = 1 / (1 + g * (g + k)), a2 = g * a1, a3 = g * a2
        let v3 = x - ic2
        let v1 = a1 * ic1 + a2 * v3
        let v2 = ic2 + a2 * ic1 + a3 * v3
        ic1 = 2 * v1 - ic1
        ic2 = 2 * v2 - ic2
        return k * v1
    }

    /// The ocean or the rain, frames `start ..< start + frameCount`, from the chunk pairs that hold them.
    private func renderPaired(into out: UnsafeMutablePointer<Float>, from start: Int64, frameCount: Int) {
        let pairFrames = 2 * chunkFrames
        var i = 0
        while i < frameCount {
            let frame = start + Int64(i)
            let pair = Self.floorDiv(frame, pairFrames)
            if pair != cachedPair { renderPair(pair) }
            // The chunk and the frame in it: the pair's frames are held side by side, a vector of
            // four floats a frame of the chunk [first chunk L, R; second chunk L, R].
            let offset = frame - pair * pairFrames
            let second = offset >= chunkFrames
            let at = Int(second ? offset - chunkFrames : offset)
            let n = min(frameCount - i, Int(chunkFrames) - at)
            let from = UnsafeRawPointer(pairBuffer + at) + (second ? 8 : 0)
            if channels == 2 {
                let to = UnsafeMutableRawPointer(out + i * 2)
                for k in 0..<n { to.storeBytes(of: from.load(fromByteOffset: k * 16, as: UInt64.self), toByteOffset: k * 8, as: UInt64.self) }
            } else {
                for k in 0..<n { out[i + k] = from.load(fromByteOffset: k * 16, as: Float.self) }
            }
            i += n
        }
    }

    /// Renders chunks 2·`pair` and 2·`pair` + 1 of the ambience, both ears, into `pairBuffer`.
    private func renderPair(_ pair: Int64) {
        cachedPair = pair
        if kind == .ocean { renderOceanPair(pair) } else { renderRainPair(pair) }
    }

    /// Renders chunks 2·`pair` and 2·`pair` + 1 of the ocean, both ears, into `pairBuffer` (a
    /// vector a frame of the chunk, as the loop makes them): the two chunks side by side as the
    /// lanes of vectors of four floats [first chunk L, R; second chunk L, R], each chunk's filters
    /// started from rest at its own warm-up. A filter waits on
    /// its own last output every frame, so one chunk's frames cannot share a vector; two chunks'
    /// can, and each frame's operations (on registers of four floats, as the processor's
    /// baseline instructions have them) give four samples.
    ///
    /// The body is noise under two poles that open as the wave rises, the foam hiss (a high-pass,
    /// then a low-pass) as it breaks, and a rumble under two poles at 110 Hz.
    private func renderOceanPair(_ pair: Int64) {
        // shape: hot loop, the per-frame filter chains of four lanes run in SIMD registers, each frame waiting on the one before
        let chunk = chunkFrames, controlFrames = self.controlFrames
        let out = pairBuffer
        // Each one-pole filter as y = pole·y + (1 − pole)·x: the product of the input is worked
        // out beside the filter, so a frame waits on one product and one sum of the frame before
        // (not a difference, a product and a sum).
        let hp = SIMD4<Float>(repeating: Float(highPass)), rumblePole = SIMD4<Float>(repeating: Float(self.rumblePole))
        let rumbleGain = 1 - rumblePole
        let foamPole = SIMD4<Float>(repeating: Float(lowPass)), foamGain = 1 - foamPole
        // The mix's weights ride in the last filters' input gains: the second rumble filter holds
        // 2.5 times the rumble, the second low-pass 1.6 times the swell.
        let rumbleGain2 = 2.5 * rumbleGain
        var hpOut = SIMD4<Float>(), last = SIMD4<Float>(), rumble = SIMD4<Float>(), rumble2 = SIMD4<Float>()
        var lp1 = SIMD4<Float>(), lp2 = SIMD4<Float>(), lp3 = SIMD4<Float>()
        /// The four lanes' controls at control point `q` of the first chunk.
        func controls(_ q: Int64) -> (Control, Control, Control, Control) {
            let qB = q + chunk / controlFrames
            return (control(q, channel: 0), control(q, channel: 1), control(qB, channel: 0), control(qB, channel: 1))
        }
        var next: (Control, Control, Control, Control)?
        var pole = SIMD4<Float>(), gain = SIMD4<Float>(), gain2 = SIMD4<Float>(), detail = SIMD4<Float>()
        var level = SIMD4<Float>(), slope = SIMD4<Float>()
        walkPair(pair) { q, _ in
            let here = next ?? controls(q)
            next = controls(q + 1)
            pole = SIMD4<Float>(Float(here.0.pole), Float(here.1.pole), Float(here.2.pole), Float(here.3.pole))
            gain = 1 - pole
            gain2 = 1.6 * gain
            detail = 0.35 * SIMD4<Float>(Float(here.0.detail), Float(here.1.detail), Float(here.2.detail), Float(here.3.detail))
            level = SIMD4<Float>(Float(here.0.envelope), Float(here.1.envelope), Float(here.2.envelope), Float(here.3.envelope))
            let after = next!
            slope = (SIMD4<Float>(Float(after.0.envelope), Float(after.1.envelope), Float(after.2.envelope), Float(after.3.envelope))
                - level) * (1 / Float(controlFrames))
        } frame: { x, at in
            hpOut = hp * (hpOut + (x - last))
            last = x
            rumble = rumblePole * rumble + rumbleGain * x
            rumble2 = rumblePole * rumble2 + rumbleGain2 * rumble
            lp1 = pole * lp1 + gain * x
            lp2 = pole * lp2 + gain2 * lp1
            lp3 = foamPole * lp3 + foamGain * hpOut
            let v = level * (lp2 + detail * lp3 + rumble2)
            level += slope
            if at >= 0 { out[Int(at)] = v }
        }
    }

    /// Renders chunks 2·`pair` and 2·`pair` + 1 of the rain, both ears, into `pairBuffer`, the
    /// four lanes as `renderOceanPair` has them.
    ///
    /// The hiss is the noise high-passed and tilted down (two one-pole low-passes), over the
    /// rumble (two one-pole low-passes at 140 Hz); a drop is an impulse of a random size into two
    /// short resonators. Whether a drop falls in a lane at a frame is drawn from 16 bits of one
    /// hash for the four lanes (its chance to the nearest 1/65536); its size and sign from a hash
    /// of their own only when one falls, a few frames in a hundred.
    private func renderRainPair(_ pair: Int64) {
        // shape: hot loop, the per-frame filter chains of four lanes run in SIMD registers, each frame waiting on the one before
        let chunk = chunkFrames, controlFrames = self.controlFrames
        let startA = 2 * pair * chunk
        let out = pairBuffer
        func vector(_ x: Double) -> SIMD4<Float> { SIMD4(repeating: Float(x)) }
        let hp = vector(highPass), rumblePole = vector(self.rumblePole), tilt = vector(self.tilt), lowPole = vector(lowPass)
        // The mix's weights ride in the last filters' input gains: the hiss's 1.2, the rumble's 0.8.
        let rumbleGain = 1 - rumblePole, rumbleGain2 = 0.8 * rumbleGain, tiltGain = 1 - tilt, lowGain = 1.2 * (1 - lowPole)
        let a1 = vector(resonator1.0), b1 = vector(resonator1.1), a2 = vector(resonator2.0), b2 = vector(resonator2.1)
        var hpOut = SIMD4<Float>(), last = SIMD4<Float>(), rumble = SIMD4<Float>(), rumble2 = SIMD4<Float>()
        var lp1 = SIMD4<Float>(), lp2 = SIMD4<Float>(), r1a = SIMD4<Float>(), r1b = SIMD4<Float>(), r2a = SIMD4<Float>(), r2b = SIMD4<Float>()
        /// The two chunks' controls at control point `q` of the first (the rain's are the same in both ears).
        func controls(_ q: Int64) -> (Control, Control) { (control(q, channel: 0), control(q + chunk / controlFrames, channel: 0)) }
        /// Each lane's drop at `frameA` of the first chunk where `falls`: size² with a sign.
        func drops(_ frameA: Int64, _ falls: SIMDMask<SIMD4<Int32>>) -> SIMD4<Float> {
            var impulse = SIMD4<Float>()
            for lane in 0..<4 where falls[lane] {
                let h = hash(2, (frameA + (lane < 2 ? 0 : chunk)) &* 4 &+ Int64(lane & 1))
                let size = Float(h >> 40) * (1.0 / 16_777_216)
                impulse[lane] = size * size * (h & 1 == 0 ? -1 : 1)
            }
            return impulse
        }
        var next: (Control, Control)?
        var level = SIMD4<Float>(), slope = SIMD4<Float>(), chance = SIMD4<Int32>(), live = SIMD4<Float>()
        walkPair(pair) { q, liveLanes in
            let here = next ?? controls(q)
            next = controls(q + 1)
            level = SIMD4<Float>(Float(here.0.envelope), Float(here.0.envelope), Float(here.1.envelope), Float(here.1.envelope))
            let after = next!
            slope = (SIMD4<Float>(Float(after.0.envelope), Float(after.0.envelope), Float(after.1.envelope), Float(after.1.envelope))
                - level) * (1 / Float(controlFrames))
            let chanceA = Int32(here.0.eventChance * 65536 + 0.5), chanceB = Int32(here.1.eventChance * 65536 + 0.5)
            chance = SIMD4<Int32>(chanceA, chanceA, chanceB, chanceB)
            live = liveLanes
        } frame: { x, at in
            let bits = SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(hash(1, startA + at), to: SIMD4<UInt16>.self))
            let falls = bits .< chance
            let drop = any(falls) ? drops(startA + at, falls) * live : SIMD4<Float>()
            hpOut = hp * (hpOut + (x - last))
            last = x
            rumble = rumblePole * rumble + rumbleGain * x
            rumble2 = rumblePole * rumble2 + rumbleGain2 * rumble
            lp1 = tilt * lp1 + tiltGain * hpOut
            lp2 = lowPole * lp2 + lowGain * lp1
            let r1 = drop + a1 * r1a - b1 * r1b
            r1b = r1a; r1a = r1
            let r2 = drop + a2 * r2a - b2 * r2b
            r2b = r2a; r2a = r2
            let v = level * (lp2 + 0.05 * (r1 + 0.7 * r2) + rumble2)
            level += slope
            if at >= 0 { out[Int(at)] = v }
        }
    }

    /// Walks chunks 2·`pair` and 2·`pair` + 1 side by side, from their warm-up (whole control
    /// intervals before each) to their end: `interval` at each control interval, with the first
    /// chunk's control point and the lanes that are live (the first pair's first chunk starts at
    /// the session's start: no noise before it, so its filters are at rest there), then `frame`
    /// for each of its frames, with the four lanes' white noise and the frame's place in its
    /// chunk (below 0 in the warm-up, which is not kept).
    @inline(__always)
    private func walkPair(_ pair: Int64, _ interval: (_ q: Int64, _ live: SIMD4<Float>) -> Void,
                          frame: (_ noise: SIMD4<Float>, _ at: Int64) -> Void) {
        let chunk = chunkFrames, startA = 2 * pair * chunk
        var t = -pairWarmUpFrames
        while t < chunk {
            let live = startA + t >= 0 ? SIMD4<Float>(repeating: 1) : SIMD4<Float>(0, 0, 1, 1)
            interval(Self.floorDiv(startA + t, controlFrames), live)
            var k: Int64 = 0
            while k < controlFrames {
                // Both chunks' frames at `t + k` and the one after: a hash each, 32 bits a frame.
                let frameA = startA + t + k
                let a = hash(0, frameA >> 1), b = hash(0, (frameA + chunk) >> 1)
                frame(Self.whiteQuad(a, b, odd: false) * live, t + k)
                frame(Self.whiteQuad(a, b, odd: true) * live, t + k + 1)
                k += 2
            }
            t += controlFrames
        }
    }

    /// `whitePair` of two frames at once, as four lanes: [the first's L, R; the second's L, R],
    /// from their hashes `a` and `b`.
    @inline(__always)
    private static func whiteQuad(_ a: UInt64, _ b: UInt64, odd: Bool) -> SIMD4<Float> {
        let bits = odd ? (a >> 32) | (b & 0xFFFF_FFFF_0000_0000) : (a & 0xFFFF_FFFF) | (b << 32)
        let k = SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(bits, to: SIMD4<Int16>.self))
        return (SIMD4<Float>(k) + 0.5) * (1.0 / 32768)
    }

    /// Starts the filters from rest at the warm-up before `frame`'s chunk and runs them up to it.
    private func restart(at frame: Int64) {
        let chunkStart = frame / chunkFrames * chunkFrames
        for c in 0..<channels {
            var s = State()
            var f = max(0, chunkStart - warmUpFrames)
            while f < frame {
                _ = step(f, c, &s)
                f += 1
            }
            states[c] = s
        }
    }

    /// Writes frames `start ..< start + frameCount` of the ambience into `out`, interleaved: a
    /// chunk's run at a time, each channel's filters in a local through the run.
    public func render(into out: UnsafeMutablePointer<Float>, from start: Int64, frameCount: Int) {
        if paired { return renderPaired(into: out, from: start, frameCount: frameCount) }
        var i = 0
        while i < frameCount {
            let frame = start + Int64(i)
            if frame != next || frame % chunkFrames == 0 { restart(at: frame) }
            let chunkEnd = (Self.floorDiv(frame, chunkFrames) + 1) * chunkFrames
            let n = Int(min(Int64(frameCount - i), chunkEnd - frame))
            if channels == 2 {
                // Both ears in one loop: their filters are two chains the processor runs side by side.
                var left = states[0], right = states[1]
                for j in 0..<n {
                    let f = frame + Int64(j)
                    out[(i + j) * 2] = Float(step(f, 0, &left))
                    out[(i + j) * 2 + 1] = Float(step(f, 1, &right))
                }
                states[0] = left
                states[1] = right
            } else {
                for c in 0..<channels {
                    var s = states[c]
                    for j in 0..<n { out[(i + j) * channels + c] = Float(step(frame + Int64(j), c, &s)) }
                    states[c] = s
                }
            }
            i += n
            next = frame + Int64(n)
        }
    }
}
