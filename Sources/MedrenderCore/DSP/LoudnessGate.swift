import Foundation

/// Integrated loudness as ITU-R BS.1770 and EBU R 128 define it, in Swift: K-weighting (a high
/// shelf and a high-pass, as libebur128 derives them for any rate), mean square over 400-ms blocks
/// every 100 ms, an absolute gate at −70 LUFS and a relative gate 10 LU under the gated mean.
///
/// With `withRange`, also the loudness range (EBU Tech 3342, as libebur128 measures it): the
/// energy of 3-s windows every second, gated at −70 LUFS and 20 LU under their mean, from the
/// 10th to the 95th percentile.
///
/// Pass 1 measures with it because it runs several times faster than libebur128 over a whole
/// session, and so does the check of what a render wrote (the decoded OGG, the WAV or FLAC as
/// written). Parts of one stream measured apart combine by their blocks
/// (`integratedLoudness(of:)`), as libebur128's states do.
///
/// A gate keeps a number for every 100 ms (1 MiB at three hours with the doubling of its list):
/// `binned` keeps instead, for each 0.01-LU step of loudness from −70 to +10 LUFS, how many blocks
/// fell in it and the sum of their energies: a fixed 94 KiB (twice that with a range), whatever
/// the length. Its loudness is exact but for the blocks in the one step the relative gate falls
/// in (taken in or out together), and its range is read to the step (libebur128 reads it to
/// 0.1 LU). The checks of what a render wrote measure so; pass 1, whose loudness sets the gain,
/// keeps every block.
public final class LoudnessGate {
    public let channels: Int
    /// 100 ms in frames, rounded as libebur128 rounds it.
    private let hop: Int
    // Two cascaded biquads per channel (the shelf, then the high-pass), in Double.
    private let b: (Double, Double, Double, Double, Double, Double)
    private let a: (Double, Double, Double, Double)
    /// Each biquad's feed-forward coefficients with its output folded in (`filter`): b1 − a1·b0 and
    /// b2 − a2·b0 of the shelf, then of the high-pass.
    private let folded: (Double, Double, Double, Double)
    private var state: [Double]  // 4 filter values and the hop's running sum, per channel
    private let channelWeight: Double
    /// Mean-square energy of the last four 100-ms hops, summed over channels.
    private var hops: [Double] = [0, 0, 0, 0]
    private var hopsSeen = 0
    private var inHop = 0
    /// The energy of every 400-ms block so far (a block every 100 ms); empty when `binned`.
    public private(set) var blocks: [Double] = []
    /// When binned: the blocks over the absolute gate, and the 3-s windows, by 0.01-LU step.
    private let binned: Bool
    private var blockBins: Bins
    private var windowBins: Bins
    /// With a range: the last thirty 100-ms hops' energies (3 s), and the energy of every 3-s
    /// window, one a second, over the absolute gate.
    private let withRange: Bool
    private var recentHops: [Double]
    private var shortTerm: [Double] = []
    /// With `stretchFrames` over 0 (`reportStretches`), each stretch's K-weighted energy (its
    /// squares summed over channels) goes to `stretchSink` as it ends.
    private var stretchFrames = 0
    private var inStretch = 0
    private var stretchEnergy = 0.0
    private var stretchSink: ((Double) -> Void)?

    /// From the next frame on, hands the K-weighted energy of each stretch of `frames` frames to
    /// `sink` as it ends, the first ending `frames − phase` frames on: what a lossy output's check
    /// compares its decoded frames with (`SelectiveDecode`). The figures this gate gives are the same.
    public func reportStretches(of frames: Int, phase: Int = 0, to sink: @escaping (Double) -> Void) {
        stretchFrames = frames
        inStretch = phase
        stretchEnergy = 0
        stretchSink = sink
    }

    public init(channels: Int, rate: Int, withRange: Bool = false, binned: Bool = false) {
        self.channels = channels
        self.withRange = withRange
        self.binned = binned
        blockBins = Bins(binned)
        windowBins = Bins(binned && withRange)
        recentHops = withRange ? [Double](repeating: 0, count: 30) : []
        self.hop = (rate + 5) / 10
        // Mono plays on both speakers: weigh it as dual mono, as the report's meter does.
        self.channelWeight = channels == 1 ? 2 : 1
        let r = Double(rate)
        var f0 = 1681.974450955533, q = 0.7071752369554196
        let g = 3.999843853973347
        var k = tan(Double.pi * f0 / r)
        let vh = pow(10, g / 20), vb = pow(vh, 0.4996667741545416)
        let a0 = 1 + k / q + k * k
        let shelf = ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0)
        let shelfA = (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / r)
        let hpA = (2 * (k * k - 1) / (1 + k / q + k * k), (1 - k / q + k * k) / (1 + k / q + k * k))
        b = (shelf.0, shelf.1, shelf.2, 1, -2, 1)
        a = (shelfA.0, shelfA.1, hpA.0, hpA.1)
        folded = (b.1 - a.0 * b.0, b.2 - a.1 * b.0, b.4 - a.2 * b.3, b.5 - a.3 * b.3)
        state = [Double](repeating: 0, count: 5 * channels)
        if !binned { blocks.reserveCapacity(1024) }
    }

    /// Counts and energy sums by 0.01-LU step of loudness, −70 to +10 LUFS (the ends take what
    /// lies past them).
    struct Bins {
        static let count = 8000
        var counts: [Int32]
        var sums: [Double]

        init(_ used: Bool) {
            counts = used ? [Int32](repeating: 0, count: Self.count) : []
            sums = used ? [Double](repeating: 0, count: Self.count) : []
        }

        /// The step an energy's loudness falls in.
        static func index(_ energy: Double) -> Int {
            let lufs = -0.691 + 10 * log10(energy)
            return max(0, min(count - 1, Int(((lufs + 70) * 100).rounded(.down))))
        }

        /// The loudness at the middle of step `i`, in LUFS.
        static func middle(_ i: Int) -> Double { -70 + (Double(i) + 0.5) / 100 }

        mutating func add(_ energy: Double) {
            let i = Self.index(energy)
            counts[i] += 1
            sums[i] += energy
        }

        var total: (sum: Double, count: Int) {
            var sum = 0.0, n = 0
            for i in 0..<Self.count where counts[i] > 0 { sum += sums[i]; n += Int(counts[i]) }
            return (sum, n)
        }

        /// The steps at or over `energy`, in order of loudness: a step that holds it is taken in
        /// when its blocks' mean is at or over it.
        func steps(over energy: Double) -> [(index: Int, count: Int, sum: Double)] {
            let first = Self.index(energy)
            var out: [(index: Int, count: Int, sum: Double)] = []
            for i in first..<Self.count where counts[i] > 0 {
                if i == first, sums[i] / Double(counts[i]) < energy { continue }
                out.append((i, Int(counts[i]), sums[i]))
            }
            return out
        }
    }

    /// How many numbers the gate keeps for its blocks and windows: fixed when binned, one per
    /// 100 ms and one per second otherwise.
    public var heldValues: Int {
        binned ? 2 * (blockBins.counts.count + windowBins.counts.count) : blocks.count + shortTerm.count
    }

    /// Adds `frameCount` interleaved frames.
    public func add(_ frames: UnsafePointer<Float>, frameCount: Int) {
        state.withUnsafeMutableBufferPointer { s in
            var f = 0
            while f < frameCount {
                var n = min(hop - inHop, frameCount - f)
                if stretchFrames > 0 { n = min(n, stretchFrames - inStretch) }
                let before = stretchFrames > 0 ? Self.sums(s, channels: channels) : 0
                if Self.isSilent(s, frames + f * channels, count: n * channels) {
                    // Silence into filters at rest leaves them at rest and adds nothing to the
                    // hop's sum: a voice layer between its lines is counted, not filtered.
                } else if channels == 2 {
                    // Both channels as the two lanes of one vector: the same operations in the
                    // same order per channel, half the instructions.
                    func lanes(_ k: Int) -> SIMD2<Double> { SIMD2<Double>(s[k], s[k + 5]) }
                    var chains = Chains<SIMD2<Double>>(s1: lanes(0), s2: lanes(1), t1: lanes(2), t2: lanes(3), sum: lanes(4))
                    let from = frames + f * 2
                    filter(&chains, frames: n) { k -> SIMD2<Double> in SIMD2(Double(from[2 * k]), Double(from[2 * k + 1])) }
                    let (s1, s2, t1, t2, sum) = (chains.s1, chains.s2, chains.t1, chains.t2, chains.sum)
                    (s[0], s[1], s[2], s[3], s[4]) = (s1[0], s2[0], t1[0], t2[0], sum[0])
                    (s[5], s[6], s[7], s[8], s[9]) = (s1[1], s2[1], t1[1], t2[1], sum[1])
                } else {
                    // Each channel's chain in turn, in the first lane (the second idle). The running
                    // sum carries over calls, so how the frames are split never changes the order
                    // of the additions.
                    for c in 0..<channels {
                        func lanes(_ k: Int) -> SIMD2<Double> { SIMD2<Double>(s[c * 5 + k], 0) }
                        var chains = Chains<SIMD2<Double>>(s1: lanes(0), s2: lanes(1), t1: lanes(2), t2: lanes(3), sum: lanes(4))
                        let from = frames + f * channels + c
                        filter(&chains, frames: n) { k -> SIMD2<Double> in SIMD2(Double(from[k * channels]), 0) }
                        (s[c * 5], s[c * 5 + 1], s[c * 5 + 2]) = (chains.s1[0], chains.s2[0], chains.t1[0])
                        (s[c * 5 + 3], s[c * 5 + 4]) = (chains.t2[0], chains.sum[0])
                    }
                }
                f += n
                if stretchFrames > 0 { endStretch(after: n, energy: Self.sums(s, channels: channels) - before) }
                advance(by: n, s)
            }
        }
    }

    /// The filters' memory and running sums of squares of several chains, one per lane.
    struct Chains<V: SIMD> where V.Scalar == Double {
        var s1, s2, t1, t2, sum: V
    }

    /// Runs `chains` over `n` frames, `input(k)` giving each chain's sample of frame `k`: the two
    /// biquads in transposed direct form II, the same operations in the same order per chain as
    /// the loop over one channel (so lanes give what it gives, to the bit).
    ///
    /// Each biquad's output, y = b0·x + s1, is put into its memory's update beforehand:
    /// s1 ← (b1 − a1·b0)·x + s2 − a1·s1 and s2 ← (b2 − a2·b0)·x − a2·s1. The same filter, but a frame
    /// waits on the one before for a multiply and a subtraction instead of four operations, so the
    /// processor runs the next frames' other work meanwhile. The energy measured moves by a few
    /// parts in 10¹⁵, and every stock preset's bytes are what they were.
    @inline(__always)
    private func filter<V: SIMD>(_ chains: inout Chains<V>, frames n: Int, _ input: (Int) -> V) where V.Scalar == Double {
        // shape: hot loop, each frame waits on the one before through the filters' memory
        let (b0, c0) = (b.0, b.3)
        let (e1, e2, f1, f2) = folded
        let (a1, a2, d1, d2) = a
        var (s1, s2, t1, t2, sum) = (chains.s1, chains.s2, chains.t1, chains.t2, chains.sum)
        for k in 0..<n {
            let x = input(k)
            let y = b0 * x + s1
            (s1, s2) = ((e1 * x + s2) - a1 * s1, e2 * x - a2 * s1)
            let z = c0 * y + t1
            (t1, t2) = ((f1 * y + t2) - d1 * t1, f2 * y - d2 * t1)
            sum += z * z
        }
        chains = Chains(s1: s1, s2: s2, t1: t1, t2: t2, sum: sum)
    }

    /// The hop's running sums of squares, over channels.
    private static func sums(_ s: UnsafeMutableBufferPointer<Double>, channels: Int) -> Double {
        var total = 0.0
        for c in 0..<channels { total += s[c * 5 + 4] }
        return total
    }

    /// Counts `n` frames of `energy` into the stretch, and hands it on when it is full.
    private func endStretch(after n: Int, energy: Double) {
        stretchEnergy += energy
        inStretch += n
        guard inStretch == stretchFrames else { return }
        stretchSink?(stretchEnergy)
        stretchEnergy = 0
        inStretch = 0
    }

    /// Whether every filter of `s` is at rest (its memory zero) and the `count` samples from
    /// `samples` are all zero.
    private static func isSilent(_ s: UnsafeMutableBufferPointer<Double>, _ samples: UnsafePointer<Float>, count: Int) -> Bool {
        for k in s.indices where k % 5 != 4 && s[k] != 0 { return false }
        // Eight samples at a time (a voice layer is silent for most of a session).
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(samples + i).loadUnaligned(as: SIMD8<Float>.self)
            if any(v .!= 0) { return false }
            i += 8
        }
        while i < count {
            if samples[i] != 0 { return false }
            i += 1
        }
        return true
    }

    /// Counts `n` frames into the current 100-ms hop, and closes the hop when it is full.
    private func advance(by n: Int, _ s: UnsafeMutableBufferPointer<Double>) {
        inHop += n
        guard inHop == hop else { return }
        var energy = 0.0
        for c in 0..<channels {
            energy += s[c * 5 + 4] * channelWeight
            s[c * 5 + 4] = 0
            // Over silence (a voice layer between its lines) the filters' memory decays towards
            // zero and, without this, settles among the subnormal numbers, where each operation
            // costs the processor a hundred times its usual time: a voice meter then took most of
            // a render. Memory under 1e-30 (600 dB under full scale) adds energies under 1e-60,
            // against the absolute gate's 1e-7, so it is zeroed: every stock preset's bytes, which
            // follow from the gain this meter sets, are what they were.
            for k in c * 5..<c * 5 + 4 where abs(s[k]) < 1e-30 { s[k] = 0 }
        }
        hops[hopsSeen % 4] = energy / Double(hop)
        if withRange { recentHops[hopsSeen % 30] = energy }
        hopsSeen += 1
        inHop = 0
        if hopsSeen >= 4 {
            let block = (hops[0] + hops[1] + hops[2] + hops[3]) / 4
            if !binned {
                blocks.append(block)
            } else if block >= Self.absoluteGate {
                blockBins.add(block)
            }
        }
        // A 3-s window after 3 s, then every second, as libebur128 takes them.
        if withRange, hopsSeen >= 30, hopsSeen % 10 == 0 {
            let window = recentHops.reduce(0, +) / Double(30 * hop)
            if window >= Self.absoluteGate {
                if binned { windowBins.add(window) } else { shortTerm.append(window) }
            }
        }
    }

    /// −70 LUFS as an energy.
    private static let absoluteGate = pow(10, (-70 + 0.691) / 10)

    /// The loudness range in LU (0 when nothing passes the gates); needs `withRange`.
    public var loudnessRange: Double {
        precondition(withRange, "a gate made without a range")
        if binned { return binnedRange }
        guard !shortTerm.isEmpty else { return 0 }
        let relative = shortTerm.reduce(0, +) / Double(shortTerm.count) * 0.01
        let gated = shortTerm.filter { $0 >= relative }.sorted()
        guard !gated.isEmpty else { return 0 }
        let low = gated[Int(Double(gated.count - 1) * 0.1 + 0.5)], high = gated[Int(Double(gated.count - 1) * 0.95 + 0.5)]
        return 10 * log10(high) - 10 * log10(low)
    }

    /// Adds `frameCount` stereo frames to each of two gates at once: their four filter chains
    /// (two streams, two channels) side by side in one loop, which the processor runs in
    /// parallel, where one stream alone waits on its filters' latency. Each gate ends exactly as
    /// `add` would leave it (the same operations in the same order per chain). Both gates must be
    /// stereo, of one rate, and at the same point of their 100-ms hop (as two streams that start
    /// on whole seconds and are fed alike are).
    public static func add(_ first: LoudnessGate, _ a: UnsafePointer<Float>, _ second: LoudnessGate, _ b: UnsafePointer<Float>,
                           frameCount: Int) {
        precondition(first.channels == 2 && second.channels == 2 && first.hop == second.hop && first.inHop == second.inHop,
                     "two gates fed together must be stereo and in step")
        precondition(first.stretchFrames == 0 && second.stretchFrames == 0, "two gates fed together report no stretches")
        first.state.withUnsafeMutableBufferPointer { s in
            second.state.withUnsafeMutableBufferPointer { t in
                var f = 0
                while f < frameCount {
                    let n = min(first.hop - first.inHop, frameCount - f)
                    // The four chains as the four lanes of one vector: left and right of each.
                    func lanes(_ k: Int) -> SIMD4<Double> { SIMD4<Double>(s[k], s[k + 5], t[k], t[k + 5]) }
                    var chains = Chains<SIMD4<Double>>(s1: lanes(0), s2: lanes(1), t1: lanes(2), t2: lanes(3), sum: lanes(4))
                    let x = a + f * 2, y = b + f * 2
                    first.filter(&chains, frames: n) { k -> SIMD4<Double> in
                        let left = SIMD2<Double>(Double(x[2 * k]), Double(x[2 * k + 1]))
                        let right = SIMD2<Double>(Double(y[2 * k]), Double(y[2 * k + 1]))
                        return SIMD4(lowHalf: left, highHalf: right)
                    }
                    let (s1, s2, t1, t2, sum) = (chains.s1, chains.s2, chains.t1, chains.t2, chains.sum)
                    (s[0], s[1], s[2], s[3], s[4]) = (s1[0], s2[0], t1[0], t2[0], sum[0])
                    (s[5], s[6], s[7], s[8], s[9]) = (s1[1], s2[1], t1[1], t2[1], sum[1])
                    (t[0], t[1], t[2], t[3], t[4]) = (s1[2], s2[2], t1[2], t2[2], sum[2])
                    (t[5], t[6], t[7], t[8], t[9]) = (s1[3], s2[3], t1[3], t2[3], sum[3])
                    f += n
                    first.advance(by: n, s)
                    second.advance(by: n, t)
                }
            }
        }
    }

    /// The range from the binned windows: the 10th and 95th percentiles read at their steps' middles.
    private var binnedRange: Double {
        let all = windowBins.total
        guard all.count > 0 else { return 0 }
        let steps = windowBins.steps(over: all.sum / Double(all.count) * 0.01)
        let gated = steps.reduce(0) { $0 + $1.count }
        guard gated > 0 else { return 0 }
        func percentile(_ p: Double) -> Double {
            let rank = Int(Double(gated - 1) * p + 0.5)
            var seen = 0
            for step in steps {
                seen += step.count
                if rank < seen { return Bins.middle(step.index) }
            }
            return Bins.middle(steps.last!.index)
        }
        return percentile(0.95) - percentile(0.1)
    }

    /// The loudest 400-ms block (momentary loudness) of this stream, in LUFS (−∞ for none).
    public var momentaryMaximum: Double {
        precondition(!binned, "a binned gate keeps no blocks")
        guard let loudest = blocks.max(), loudest > 0 else { return -.infinity }
        return -0.691 + 10 * log10(loudest)
    }

    /// The integrated loudness of this stream, in LUFS (−∞ when every block is gated out).
    public var integratedLoudness: Double {
        guard binned else { return Self.integratedLoudness(of: [self]) }
        let all = blockBins.total
        guard all.count > 0 else { return -.infinity }
        let steps = blockBins.steps(over: all.sum / Double(all.count) * pow(10, -10.0 / 10))
        let gated = steps.reduce((sum: 0.0, count: 0)) { ($0.sum + $1.sum, $0.count + $1.count) }
        guard gated.count > 0 else { return -.infinity }
        return -0.691 + 10 * log10(gated.sum / Double(gated.count))
    }

    /// The integrated loudness of several parts of one stream taken together.
    public static func integratedLoudness(of parts: [LoudnessGate]) -> Double {
        precondition(!parts.contains(where: \.binned), "parts combine by their blocks: a binned gate keeps none")
        let absolute = pow(10, (-70 + 0.691) / 10)
        var sum = 0.0, count = 0
        for part in parts { for e in part.blocks where e >= absolute { sum += e; count += 1 } }
        guard count > 0 else { return -.infinity }
        let relative = sum / Double(count) * pow(10, -10.0 / 10)
        var gated = 0.0, gatedCount = 0
        for part in parts { for e in part.blocks where e >= absolute && e >= relative { gated += e; gatedCount += 1 } }
        guard gatedCount > 0 else { return -.infinity }
        return -0.691 + 10 * log10(gated / Double(gatedCount))
    }
}
