/// A point or a span on the session's clock, held as whole milliseconds.
///
/// Every time in medrender is a `SessionTime`: the author's decimals (5.5 s, 0.1-s steps, ramps
/// rounded to the millisecond) are exact here, sums never drift, and this file is the one place
/// where seconds become milliseconds and milliseconds become frames.
public struct SessionTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Whole milliseconds. Negative values are allowed for differences.
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The time nearest to `seconds`, at millisecond resolution.
    ///
    /// Returns nil for NaN, infinities and values beyond ±1,000 years, so callers can report them.
    public init?(seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 3.2e10 else { return nil }
        self.milliseconds = Int64((seconds * 1000).rounded())
    }

    /// The time nearest to `minutes`, at millisecond resolution; nil when not finite or absurd.
    public init?(minutes: Double) {
        guard minutes.isFinite, abs(minutes) < 5e8 else { return nil }
        self.init(seconds: minutes * 60)
    }

    public static let zero = SessionTime(milliseconds: 0)

    public static func seconds(_ value: Int64) -> SessionTime { SessionTime(milliseconds: value * 1000) }

    /// The time in seconds, for display and for the cue sheet. Never use it to place a frame.
    public var seconds: Double { Double(milliseconds) / 1000 }

    /// The frame this time lands on at `rate`: `round(t × rate)`, exact, ties away from zero.
    ///
    /// This is the only conversion from time to frames in medrender. It is computed from the
    /// absolute time every time, so rounding never accumulates.
    public func frame(atRate rate: Int) -> Int64 {
        let scaled = milliseconds * Int64(rate) * 2
        return scaled >= 0 ? (scaled + 1000) / 2000 : -((-scaled + 1000) / 2000)
    }

    /// The first millisecond at or after `frames` at `rate`: a span of that many frames (a sound's
    /// length, a line's end) as a time that covers it whole. The only conversion back from frames.
    public init(covering frames: Int64, atRate rate: Int) {
        self.init(milliseconds: (frames * 1000 + Int64(rate) - 1) / Int64(rate))
    }

    /// A span's length in frames at `rate`, for spans that start at zero (clip lengths, fades).
    public func frameCount(atRate rate: Int) -> Int64 { frame(atRate: rate) }

    public static func + (a: SessionTime, b: SessionTime) -> SessionTime {
        SessionTime(milliseconds: a.milliseconds + b.milliseconds)
    }
    public static func - (a: SessionTime, b: SessionTime) -> SessionTime {
        SessionTime(milliseconds: a.milliseconds - b.milliseconds)
    }
    public static func * (a: SessionTime, n: Int64) -> SessionTime {
        SessionTime(milliseconds: a.milliseconds * n)
    }
    public static func += (a: inout SessionTime, b: SessionTime) { a = a + b }
    public static func < (a: SessionTime, b: SessionTime) -> Bool { a.milliseconds < b.milliseconds }

    /// `H:MM:SS.mmm`, the form chapters and cue sheets use.
    public var clockString: String {
        let ms = abs(milliseconds)
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
        func pad(_ v: Int64, _ w: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, w - t.count)) + t
        }
        return (milliseconds < 0 ? "-" : "") + "\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(f, 3))"
    }

    /// Seconds written the way a person writes them: `4`, `5.5`, `0.125`.
    public var description: String {
        let whole = milliseconds / 1000, frac = abs(milliseconds % 1000)
        if frac == 0 { return String(whole) }
        var digits = String(frac)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return (milliseconds < 0 && whole == 0 ? "-" : "") + "\(whole).\(digits)"
    }
}
