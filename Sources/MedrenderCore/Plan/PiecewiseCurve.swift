import Foundation

/// A value that slides from knot to knot along named curves, on frames: a frequency, say, whose
/// phase (its integral) is known at any frame in closed form — the integral of the slide the frame
/// is in, plus the phase at that slide's first knot, worked out once when the curve is made. A
/// render started at any frame gets the same phase as one started at 0.
public struct PiecewiseCurve: Hashable, Sendable {
    /// Knot frames, ascending (equal frames make a step).
    public let frames: [Int64]
    /// The value at each knot.
    public let values: [Double]
    /// The curve of the slide that ends at each knot (the first is unused).
    public let curves: [FadeCurve]
    public let rate: Int
    /// The integral from frame 0 to each knot, in value × seconds, reduced modulo 1 (cycles).
    let phaseAtKnot: [Double]

    /// A curve through `knots`, which must be in order and start at frame 0 or later (the first
    /// value holds before it, the last after the last knot).
    public init(knots: [(frame: Int64, value: Double, curve: FadeCurve)], rate: Int) {
        precondition(!knots.isEmpty, "a curve needs a knot")
        precondition(zip(knots, knots.dropFirst()).allSatisfy { $0.frame <= $1.frame }, "knots out of order")
        frames = knots.map(\.frame)
        values = knots.map(\.value)
        curves = knots.map(\.curve)
        self.rate = rate
        var phases = [(Double(knots[0].frame) / Double(rate) * knots[0].value).truncatingRemainder(dividingBy: 1)]
        for i in 1..<knots.count {
            let seconds = Double(frames[i] - frames[i - 1]) / Double(rate)
            let area = seconds * (values[i - 1] + (values[i] - values[i - 1]) * curves[i].integral(at: 1))
            phases.append((phases[i - 1] + area).truncatingRemainder(dividingBy: 1))
        }
        phaseAtKnot = phases
    }

    /// A constant.
    public init(constant value: Double, rate: Int) {
        self.init(knots: [(0, value, .linear)], rate: rate)
    }

    /// The index of the last knot at or before `frame` (0 before the first).
    public func segment(containing frame: Int64) -> Int {
        var low = 0, high = frames.count - 1
        if frame < frames[0] { return 0 }
        while low < high {
            let mid = (low + high + 1) / 2
            if frames[mid] <= frame { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The value at `frame`; `segment` is `segment(containing: frame)`.
    public func value(at frame: Int64, segment i: Int) -> Double {
        guard i + 1 < frames.count, frame >= frames[i] else { return frame < frames[0] ? values[0] : values[i] }
        // A level stretch is its value, with no curve to evaluate (the same sum, with 0 added).
        if values[i + 1] == values[i] { return values[i] }
        let length = frames[i + 1] - frames[i]
        let x = Double(frame - frames[i]) / Double(length)
        return values[i] + (values[i + 1] - values[i]) * curves[i + 1].value(at: x)
    }

    public func value(at frame: Int64) -> Double { value(at: frame, segment: segment(containing: frame)) }

    /// True when every frame of `first...last` has the same value, the one `value(at: first,
    /// segment: i)` gives: the frames are all before the first knot, or all in one level stretch
    /// or past the last knot. `i` is `segment(containing: first)`.
    public func isLevel(from first: Int64, through last: Int64, segment i: Int) -> Bool {
        if last < frames[0] { return true }
        guard first >= frames[i] else { return false }
        guard i + 1 < frames.count else { return true }
        return last < frames[i + 1] && values[i + 1] == values[i]
    }
}

/// The phase of a `PiecewiseCurve` for frames in order, in closed form: the integral from frame 0
/// to a frame, in value × seconds, modulo 1 (the phase in cycles of a frequency following the
/// curve), with the figures of the slide a frame is in worked out once for all its frames.
struct PhaseCursor {
    let curve: PiecewiseCurve
    /// The frames the held slide covers, `start ..< end`.
    private var start: Int64 = 0
    private var end: Int64 = .min
    private var base = 0.0
    /// Level (or past the last knot): cycles per frame.
    private var perFrame = 0.0
    /// A slide: its length in frames, in seconds, its first value and its rise, and its curve.
    private var slide: FadeCurve?
    private var lengthFrames = 1.0
    private var lengthSeconds = 0.0
    private var first = 0.0
    private var rise = 0.0

    init(_ curve: PiecewiseCurve) { self.curve = curve }

    /// The phase at `frame` in cycles, 0 ≤ phase < 1.
    @inline(__always)
    mutating func phase(at frame: Int64) -> Double {
        if frame < start || frame >= end { hold(frame) }
        let area: Double
        if let slide {
            let x = Double(frame - start) / lengthFrames
            area = base + lengthSeconds * (first * x + rise * slide.integral(at: x))
        } else {
            area = base + Double(frame - start) * perFrame
        }
        // The whole cycles off by truncation, exact for a phase at or past 0 (always here).
        return area - Double(Int64(area))
    }

    /// The value at `frame` (a frequency, in hertz), as `PiecewiseCurve.value(at:)` gives it.
    @inline(__always)
    mutating func value(at frame: Int64) -> Double {
        if frame < start || frame >= end { hold(frame) }
        guard let slide else { return perFrame * Double(curve.rate) }
        return first + rise * slide.value(at: Double(frame - start) / lengthFrames)
    }

    private mutating func hold(_ frame: Int64) {
        let c = curve
        let rate = Double(c.rate)
        if frame < c.frames[0] {
            start = 0; end = c.frames[0]; base = 0; slide = nil; perFrame = c.values[0] / rate
            return
        }
        let i = c.segment(containing: frame)
        start = c.frames[i]
        base = c.phaseAtKnot[i]
        if i + 1 < c.frames.count {
            end = c.frames[i + 1]
            if c.values[i + 1] == c.values[i] {
                slide = nil; perFrame = c.values[i] / rate
            } else {
                slide = c.curves[i + 1]
                lengthFrames = Double(end - start)
                lengthSeconds = lengthFrames / rate
                first = c.values[i]
                rise = c.values[i + 1] - c.values[i]
            }
        } else {
            end = .max; slide = nil; perFrame = c.values[i] / rate
        }
    }
}
