import Foundation

/// A lookahead limiter that keeps the true peak (between samples too) at or under a ceiling.
///
/// The output is the input delayed by `latency` frames, times a gain that is never above 1 and that
/// reaches, by each peak, the reduction that peak needs: the needed gains are held as a minimum
/// over the lookahead window and then averaged over the same window, which gives a smooth attack
/// that is always at or under the need. The gain then recovers with an exponential release.
/// Peaks between samples are estimated by oversampling (4× at 48 kHz, more at lower rates, to a
/// spacing of 1/192000 s) with a windowed-sinc interpolator, but only near the ceiling, where they
/// matter. Non-finite input becomes 0.
public final class TruePeakLimiter {
    public let channels: Int
    /// Frames between a frame going in and the same frame coming out.
    public let latency: Int
    /// The ceiling as a linear sample value.
    public let ceiling: Float

    private let lookahead: Int
    /// What is left of the gain's reduction (1 − gain) a frame later, while it releases.
    private let releaseKept: Float
    private let detectorDelay: Int
    /// The interpolator's length, from the rate (`InterSampleFilter.taps(rate:)`).
    private let taps: Int
    /// The interpolation filters for the positions k/phases (the oversampling factor from the
    /// rate, `InterSampleFilter.phases(rate:)`), laid out for the detector's loop.
    private let kernel: InterSampleKernel
    private let detectThreshold: Float

    // History of input frames, long enough for the detector and the whole delay, held twice in a
    // row (every frame is written to its slot in both halves), so that the interpolator's taps are
    // always one contiguous run, wherever the ring wraps.
    private var history: [Float]
    private let historyFrames: Int
    private var written: Int = 0  // frames that have gone in

    // Peak of each frame (including the interval to the next frame), for the last two frames.
    private var previousPeak: Float = 0
    // Sliding minimum over the lookahead window: a monotonic deque of (index, value).
    private var minimumIndices: [Int]
    private var minimumValues: [Float]
    private var dequeHead = 0, dequeCount = 0
    // Moving average of the held minimums.
    private var held: [Float]
    private var heldSum: Double = 0
    private var gain: Float = 1
    /// 1 − gain as the release holds it: it decays to 0, where the gain, 1 − reduction, is 1.
    private var reduction: Float = 0
    /// The lowest gain applied so far: how hard the limiter has worked (1 when it never acted).
    public private(set) var deepestGain: Float = 1

    /// - Parameters:
    ///   - ceilingDecibels: the true-peak ceiling in dBTP, −20…0, default −1.
    ///   - lookaheadSeconds: attack time, default 0.005.
    ///   - releaseSeconds: time to recover about 63 %, default 0.08.
    public init(
        channels: Int, rate: Int, ceilingDecibels: Double = -1, lookaheadSeconds: Double = 0.005,
        releaseSeconds: Double = 0.08
    ) {
        self.channels = channels
        self.taps = InterSampleFilter.taps(rate: rate)
        self.detectorDelay = taps / 2
        // A tiny margin covers the interpolator's own error.
        self.ceiling = Float(pow(10, (ceilingDecibels - 0.05) / 20))
        self.lookahead = max(2, Int((lookaheadSeconds * Double(rate)).rounded()))
        self.releaseKept = Float(exp(-1 / (releaseSeconds * Double(rate))))
        self.latency = detectorDelay + lookahead - 1
        // Between-sample peaks exceed the samples around them by a few dB at most for real
        // material; below half the ceiling they cannot reach it.
        self.detectThreshold = ceiling * 0.5
        self.historyFrames = taps + lookahead * 2 + 4
        self.history = [Float](repeating: 0, count: 2 * historyFrames * channels)
        self.minimumIndices = [Int](repeating: 0, count: lookahead + 1)
        self.minimumValues = [Float](repeating: 1, count: lookahead + 1)
        self.held = [Float](repeating: 1, count: lookahead)
        self.heldSum = Double(lookahead)
        self.kernel = InterSampleKernel(phases: InterSampleFilter.phases(rate: rate), taps: taps)
    }

    /// How many of the latest input frames were all under the detection threshold.
    private var quietRun = 0
    /// The history's last frames and a block, one run, for `clearPeak`.
    private var clearFrames: [Float] = []

    /// True when the limiter is at rest: unity gain, and nothing in the window asks for less.
    private var isIdle: Bool {
        gain == 1 && heldSum == Double(lookahead) && dequeCount > 0 && minimumValues[dequeHead] == 1
    }

    /// Limits `frameCount` frames from `input` into `output` (which must not overlap it). When
    /// `gains` is given (room for `frameCount`), it gets the gain applied to each output frame, the
    /// same for every channel: what a stem of this mix is multiplied by to follow it.
    ///
    /// Most of a session is under the ceiling: when the limiter is at rest and a whole block,
    /// and the frames before it that the detector has yet to look at, are under half the ceiling,
    /// the block only passes through the delay line. When some are nearer, but no peak the detector
    /// finds in the block (between samples too) is over the ceiling, every need is 1 and the gain
    /// stays 1: the block passes through as well, once its peaks are found (`clearPeak`). Otherwise
    /// every frame is detected and limited. The three paths give the same samples.
    public func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, frameCount: Int,
                        gains: UnsafeMutablePointer<Float>? = nil) {
        let count = frameCount * channels
        var loudest: Float = 0
        var lastLoudSample = -1
        let threshold = detectThreshold
        /// Samples `range`, one by one: a sample at or over the threshold (or not a number) is loud.
        func look(_ range: Range<Int>) {
            for i in range {
                let a = abs(input[i])
                if !(a < threshold) { lastLoudSample = i; loudest = max(loudest, a.isNaN ? .infinity : a) }
            }
        }
        // Eight samples at a time, looked at one by one only when one of them is loud.
        let over = SIMD8<Float>(repeating: threshold), under = -over
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(input + i).loadUnaligned(as: SIMD8<Float>.self)
            if !all((v .< over) .& (v .> under)) { look(i..<(i + 8)) }
            i += 8
        }
        look(i..<count)
        let lastLoud = lastLoudSample < 0 ? -1 : lastLoudSample / channels
        defer { quietRun = lastLoud < 0 ? quietRun + frameCount : frameCount - 1 - lastLoud }
        if isIdle {
            if lastLoud < 0, quietRun > detectorDelay + 1 {
                passThrough(input, output, frameCount: frameCount)
                gains?.update(repeating: 1, count: frameCount)
                return
            }
            if loudest <= ceiling, let lastPeak = clearPeak(input, frameCount: frameCount) {
                passThrough(input, output, frameCount: frameCount)
                previousPeak = lastPeak
                gains?.update(repeating: 1, count: frameCount)
                return
            }
        }
        limitEachFrame(input, output, frameCount: frameCount, gains: gains)
    }

    /// Finds the peaks the detector would find while the block goes in (of the frames `detectorDelay`
    /// before each, as `limitEachFrame` does) and gives the last one's, or nil when one is over
    /// the ceiling: a need under 1. Its taps read the history's last frames and the block, laid out
    /// in one run in `clearFrames`, so each peak is the one `limitEachFrame` finds, to the bit.
    private func clearPeak(_ input: UnsafePointer<Float>, frameCount: Int) -> Float? {
        let channels = self.channels, taps = self.taps, historyFrames = self.historyFrames
        let count = (taps + frameCount) * channels
        if clearFrames.count < count { clearFrames = [Float](repeating: 0, count: count) }
        // The run starts `taps` frames before the block: the oldest frame a tap reads.
        let runStart = written - taps
        let startSlot = ring(runStart, historyFrames)
        var lastPeak: Float = 0
        let clear = history.withUnsafeBufferPointer { hist in
            clearFrames.withUnsafeMutableBufferPointer { run in
                let r = run.baseAddress!
                // The history holds each frame twice in a row, so its last `taps` are one run.
                r.update(from: hist.baseAddress! + startSlot * channels, count: taps * channels)
                (r + taps * channels).update(from: input, count: frameCount * channels)
                let backTaps = taps / 2 - 1
                let run = UnsafeBufferPointer(run)
                for n in written..<(written + frameCount) {
                    let m = n - detectorDelay
                    guard m >= 0 else { continue }
                    let at = m - runStart
                    let peak = framePeak(at: at, first: at - backTaps, run)
                    guard peak <= ceiling else { return false }
                    lastPeak = peak
                }
                return true
            }
        }
        return clear ? lastPeak : nil
    }

    /// The quiet path: the block goes through the delay line at unity gain; the detector's state
    /// becomes what limiting each frame would have left (every need is 1).
    private func passThrough(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, frameCount: Int) {
        let channels = self.channels, historyFrames = self.historyFrames, ceiling = self.ceiling
        history.withUnsafeMutableBufferPointer { hist in
            let h = hist.baseAddress!
            // Out go the frames `latency` before: the first from the history (one run in its
            // doubled ring; zeros before the stream's first frame), the rest from the block.
            let fromHistory = min(latency, frameCount)
            for f in 0..<fromHistory {
                let index = written - latency + f
                let slot = ring(index, historyFrames)
                for c in 0..<channels { output[f * channels + c] = index >= 0 ? h[slot * channels + c] : 0 }
            }
            if frameCount > fromHistory {
                (output + fromHistory * channels).update(from: input, count: (frameCount - fromHistory) * channels)
            }
            // Nothing here is over the ceiling (every need is 1); clamped all the same, as a
            // limited frame is.
            for i in 0..<(frameCount * channels) { output[i] = max(-ceiling, min(ceiling, output[i])) }
            // The block's last frames (as many as the ring holds) go into the history, both halves.
            let kept = min(frameCount, historyFrames)
            for f in (frameCount - kept)..<frameCount {
                let slot = (written + f) % historyFrames
                for c in 0..<channels {
                    h[slot * channels + c] = input[f * channels + c]
                    h[(slot + historyFrames) * channels + c] = input[f * channels + c]
                }
            }
        }
        written += frameCount
        previousPeak = 0
        // What is left of the release rounds to a gain of 1 (the limiter is at rest).
        reduction = 0
        dequeHead = 0
        dequeCount = 1
        minimumIndices[0] = written - 1
        minimumValues[0] = 1
    }

    /// Detects and limits every frame. The state lives in locals and buffer pointers for the loop
    /// (the class's own stored arrays would be checked for exclusive access at every frame).
    private func limitEachFrame(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, frameCount: Int,
                                gains: UnsafeMutablePointer<Float>?) {
        // shape: hot loop, each frame's detection, lookahead minimum, release and output share the state held in these locals
        let channels = self.channels, historyFrames = self.historyFrames, detectorDelay = self.detectorDelay
        let ceiling = self.ceiling, lookahead = self.lookahead, latency = self.latency
        let releaseKept = self.releaseKept
        var written = self.written, previousPeak = self.previousPeak
        var dequeHead = self.dequeHead, dequeCount = self.dequeCount
        var heldSum = self.heldSum, gain = self.gain, reduction = self.reduction, deepestGain = self.deepestGain
        var history = self.history, minimumIndices = self.minimumIndices, minimumValues = self.minimumValues, held = self.held
        // Taken out of the instance for the loop, so each is uniquely referenced and written in place.
        self.history = []
        self.minimumIndices = []
        self.minimumValues = []
        self.held = []
        history.withUnsafeMutableBufferPointer { hist in
        minimumIndices.withUnsafeMutableBufferPointer { minimumIndices in
        minimumValues.withUnsafeMutableBufferPointer { minimumValues in
        held.withUnsafeMutableBufferPointer { held in
            let capacity = minimumValues.count
            // The ring positions of frame n (going in), of m = n − detectorDelay (detected) and of
            // n − latency (going out), and of n in the held window: counted on, not divided out
            // at every frame.
            var slot = ring(written, historyFrames)
            var detectSlot = ring(written - detectorDelay, historyFrames)
            var outSlot = ring(written - latency, historyFrames)
            var heldSlot = ring(written, lookahead)
            let backTaps = taps / 2 - 1
            for f in 0..<frameCount {
                // 1. Take the frame in, made finite.
                let n = written
                let mirror = slot + historyFrames
                for c in 0..<channels {
                    let x = input[f * channels + c]
                    hist[slot * channels + c] = x.isFinite ? x : 0
                    hist[mirror * channels + c] = x.isFinite ? x : 0
                }
                written += 1

                // 2. Detect the peak of frame m = n − detectorDelay and of the interval after it.
                var peak: Float = 0
                if n >= detectorDelay {
                    var first = detectSlot - backTaps
                    if first < 0 { first += historyFrames }
                    peak = framePeak(at: detectSlot, first: first, UnsafeBufferPointer(hist))
                }
                let need = min(1, ceiling / max(max(peak, previousPeak), 1e-30))
                previousPeak = peak

                // 3. Hold the minimum need over the lookahead window (monotonic deque).
                while dequeCount > 0 {
                    var last = dequeHead + dequeCount - 1
                    if last >= capacity { last -= capacity }
                    if minimumValues[last] >= need { dequeCount -= 1 } else { break }
                }
                var tail = dequeHead + dequeCount
                if tail >= capacity { tail -= capacity }
                minimumIndices[tail] = n
                minimumValues[tail] = need
                dequeCount += 1
                while minimumIndices[dequeHead] <= n - lookahead {
                    dequeHead += 1
                    if dequeHead == capacity { dequeHead = 0 }
                    dequeCount -= 1
                }
                let heldMinimum = minimumValues[dequeHead]

                // 4. Average the held minimums over the window: a smooth attack under the need.
                heldSum += Double(heldMinimum) - Double(held[heldSlot])
                held[heldSlot] = heldMinimum
                heldSlot += 1
                if heldSlot == lookahead { heldSlot = 0 }
                let smoothed = Float(heldSum / Double(lookahead))

                // 5. Release slowly, never above what the attack allows. The reduction (1 − gain)
                // is held and decays, so the gain comes back to exactly 1 (the limiter at rest
                // again). Worked on the gain itself, the release stopped 10⁻⁴ short of 1, where its
                // step is under half a float's step there, and every later frame was limited one
                // by one.
                reduction = max(1 - smoothed, reduction * releaseKept)
                gain = 1 - reduction
                if gain < deepestGain { deepestGain = gain }

                // 6. Out goes the frame that is `latency` frames old.
                let outIndex = n - latency
                for c in 0..<channels {
                    var y: Float = 0
                    if outIndex >= 0 {
                        y = hist[outSlot * channels + c] * gain
                        if !(y <= ceiling) { y = ceiling } else if !(y >= -ceiling) { y = -ceiling }
                    }
                    output[f * channels + c] = y
                }
                gains?[f] = gain
                slot += 1
                if slot == historyFrames { slot = 0 }
                detectSlot += 1
                if detectSlot == historyFrames { detectSlot = 0 }
                outSlot += 1
                if outSlot == historyFrames { outSlot = 0 }
            }
        }
        }
        }
        }
        self.history = history
        self.minimumIndices = minimumIndices
        self.minimumValues = minimumValues
        self.held = held
        self.written = written
        self.previousPeak = previousPeak
        self.dequeHead = dequeHead
        self.dequeCount = dequeCount
        self.heldSum = heldSum
        self.gain = gain
        self.reduction = reduction
        self.deepestGain = deepestGain
    }

    /// The largest absolute value of the frame in slot `at` and of the interpolated points up to
    /// the next frame, whose interpolator's taps start at slot `first`. (Frame m + 1 and the taps
    /// follow in the doubled ring; frames before the first are its zeros, not written yet.)
    @inline(__always)
    private func framePeak(at slot: Int, first: Int, _ hist: UnsafeBufferPointer<Float>) -> Float {
        var peak: Float = 0
        var near = false
        let at = slot * channels
        for c in 0..<channels {
            let a = abs(hist[at + c])
            let b = abs(hist[at + channels + c])
            peak = max(peak, a)
            if max(a, b) > detectThreshold { near = true }
        }
        guard near else { return peak }
        return max(peak, kernel.peak(hist.baseAddress! + first * channels, channels: channels))
    }
}

/// The interpolation filters of `InterSampleFilter` laid out for the detectors' inner loop: for
/// each tap, the coefficients of four positions side by side, one vector lane each (a lane past
/// the last position is 0). Each lane sums its taps in the order a plain loop would, so the
/// figures are the same to the bit; four positions go at once.
struct InterSampleKernel {
    let taps: Int
    private let groups: Int
    /// `groups × taps` vectors: group g, tap t at g × taps + t.
    private let lanes: [SIMD4<Float>]

    init(phases: Int, taps: Int) {
        let filters = InterSampleFilter.coefficients(phases: phases, taps: taps)
        let positions = phases - 1
        self.taps = taps
        groups = (positions + 3) / 4
        var lanes = [SIMD4<Float>](repeating: .zero, count: groups * taps)
        for position in 0..<positions {
            for tap in 0..<taps { lanes[(position / 4) * taps + tap][position % 4] = filters[position * taps + tap] }
        }
        self.lanes = lanes
    }

    /// The largest absolute value, over every channel, of the points interpolated between the
    /// middle two of the `taps` interleaved frames that start at `frames`.
    @inline(__always)
    func peak(_ frames: UnsafePointer<Float>, channels: Int) -> Float {
        var largest = SIMD4<Float>.zero
        lanes.withUnsafeBufferPointer { k in
            for c in 0..<channels {
                for g in 0..<groups {
                    let row = k.baseAddress! + g * taps
                    var acc = SIMD4<Float>.zero
                    for tap in 0..<taps { acc += SIMD4(repeating: frames[tap * channels + c]) * row[tap] }
                    largest = pointwiseMax(largest, pointwiseMax(acc, -acc))
                }
            }
        }
        return largest.max()
    }
}

/// The 4× windowed-sinc interpolator that estimates peaks between samples.
enum InterSampleFilter {
    /// The interpolator's length for `rate`: 16 taps from 44.1 kHz up; 48 below, where the
    /// material reaches closer to the Nyquist frequency and 16 taps read a peak between samples
    /// 0.26 dB low at 8 kHz (against a 192-kHz resampling by soxr), 48 within 0.01 dB.
    static func taps(rate: Int) -> Int { rate < 44100 ? 48 : 16 }

    /// The oversampling factor for `rate`: the peaks between samples are looked for at a spacing
    /// of at most 1/192000 s, as meters that upsample to 192 kHz look (4× at 48 kHz, 5× at 44.1 kHz,
    /// 24× at 8 kHz).
    static func phases(rate: Int) -> Int {
        max(4, min(32, Int((192_000 / Double(max(1, rate))).rounded(.up))))
    }

    /// `phases − 1` filters of `taps` each, for the positions k/phases (k = 1…phases − 1) after
    /// the 8th tap's sample; each sums to 1.
    static func coefficients(phases: Int, taps: Int) -> [Float] {
        var filters: [Float] = []
        for phase in 1..<phases {
            let fraction = Double(phase) / Double(phases)
            var row: [Double] = []
            for tap in 0..<taps {
                let t = Double(tap - (taps / 2 - 1)) - fraction
                let sinc = t == 0 ? 1 : sin(.pi * t) / (.pi * t)
                let w = 0.5 + 0.5 * cos(.pi * t / Double(taps / 2 + 1))  // Hann
                row.append(sinc * w)
            }
            let sum = row.reduce(0, +)
            filters += row.map { Float($0 / sum) }
        }
        return filters
    }
}

/// Measures the true peak of a stream cheaply: the sample peak everywhere, and the interpolated
/// peak (oversampled as the limiter does, for the rate) only around samples within 6 dB of the
/// highest peak so far.
public final class TruePeakMeter {
    public let channels: Int
    private let kernel: InterSampleKernel
    private let taps: Int
    /// The last frames, held twice in a row (as the limiter holds them).
    private var history: [Float]
    private let historyFrames: Int
    private var written = 0
    /// The highest absolute value found, linear.
    public private(set) var peak: Float = 0

    public init(channels: Int, rate: Int) {
        self.channels = channels
        taps = InterSampleFilter.taps(rate: rate)
        kernel = InterSampleKernel(phases: InterSampleFilter.phases(rate: rate), taps: taps)
        historyFrames = taps * 2
        history = [Float](repeating: 0, count: 2 * historyFrames * channels)
    }

    /// The true peak in dBTP (−∞ for silence).
    public var peakDecibels: Double { 20 * log10(Double(peak)) }

    /// How many of the latest frames were all under half the peak found so far.
    private var quietRun = 0

    /// Takes `frameCount` frames as what the next ones follow, without looking for peaks in them:
    /// where a stream is measured in stretches, the frames just before a stretch, which lead the
    /// filter into it. What came before them is forgotten (taken as silence, as at the start).
    public func prime(_ frames: UnsafePointer<Float>, frameCount: Int) {
        for i in history.indices { history[i] = 0 }
        keep(frames, frameCount: frameCount)
        // The frames that follow are looked at one by one, whatever they are.
        quietRun = 0
    }

    /// Keeps the last of `frameCount` frames as the history, without looking at them.
    private func keep(_ frames: UnsafePointer<Float>, frameCount: Int) {
        for f in max(0, frameCount - historyFrames)..<frameCount {
            let slot = ((written + f) % historyFrames) * channels, mirror = slot + historyFrames * channels
            for c in 0..<channels {
                history[slot + c] = frames[f * channels + c]
                history[mirror + c] = frames[f * channels + c]
            }
        }
        written += frameCount
    }

    public func add(_ frames: UnsafePointer<Float>, frameCount: Int) {
        // A block under half the peak so far (after a quiet stretch as long as the filter) cannot
        // raise it: only the history is kept.
        let threshold = peak * 0.5
        var lastLoud = -1
        for i in 0..<(frameCount * channels) where !(abs(frames[i]) < threshold) { lastLoud = i / channels }
        if lastLoud < 0, quietRun > historyFrames {
            keep(frames, frameCount: frameCount)
            quietRun += frameCount
            return
        }
        quietRun = lastLoud < 0 ? quietRun + frameCount : frameCount - 1 - lastLoud
        let channels = self.channels, historyFrames = self.historyFrames, taps = self.taps, kernel = self.kernel
        var written = self.written, peak = self.peak
        history.withUnsafeMutableBufferPointer { history in
            for f in 0..<frameCount {
                let slot = (written % historyFrames) * channels, mirror = slot + historyFrames * channels
                var loudest: Float = 0
                for c in 0..<channels {
                    let x = abs(frames[f * channels + c])
                    history[slot + c] = frames[f * channels + c]
                    history[mirror + c] = frames[f * channels + c]
                    loudest = max(loudest, x)
                }
                written += 1
                if loudest > peak { peak = loudest }
                // The interval between frames m and m + 1, with m = written − 1 − taps/2; frames
                // before the first are the history's zeros (its slots are not written yet).
                let m = written - 1 - taps / 2
                guard m >= 0 else { continue }
                var near = false
                let at = (m % historyFrames) * channels  // frame m + 1 follows it in the doubled ring
                for c in 0..<channels {
                    let a = abs(history[at + c]), b = abs(history[at + channels + c])
                    if max(a, b) > peak * 0.5 { near = true }
                }
                guard near else { continue }
                let first = m - (taps / 2 - 1)
                let start = ring(first, historyFrames)
                peak = max(peak, kernel.peak(history.baseAddress! + start * channels, channels: channels))
            }
        }
        self.written = written
        self.peak = peak
    }
}

/// The slot of frame `index` in a ring of `size` slots, for any index (before the first too).
@inline(__always)
private func ring(_ index: Int, _ size: Int) -> Int { ((index % size) + size) % size }
