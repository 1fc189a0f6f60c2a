/// A whole number of seconds as people read a duration: `m:ss`, or `h:mm:ss` from an hour on.
/// The one formatter for labels, messages and progress lines (`SessionTime.clockString` is the
/// cue sheets' `hh:mm:ss.mmm`).
public enum ClockLabel {
    /// `seconds`, rounded down to the second (negative counts as 0), as `m:ss` or `h:mm:ss`.
    public static func of(seconds: Double) -> String {
        let total = seconds.isFinite ? Int(max(0, seconds).rounded(.down)) : 0
        let h = total / 3600, m = (total / 60) % 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
