/// How a cue that starts before a line of the guided script and rings into it dips under the
/// words: at its own level until the duck's attack, which ends on the line's first frame, then
/// `gain` lower to its end. Its onset is heard whole (a bowl the script tells the listener to
/// follow), and its ring does not cover the words.
public struct CueDip: Hashable, Sendable {
    /// The line's first frame: the dip is at full depth from here.
    public var frame: Int64
    /// The attack's length in frames, ending on `frame`; it begins no earlier than the cue.
    public var attackFrames: Int64
    /// The linear gain at full depth (`voice.cue-under-prompt`); 1 leaves the cue as it is.
    public var gain: Float
    /// The attack's shape (`voice.duck-curve`).
    public var curve: FadeCurve

    public init(frame: Int64, attackFrames: Int64, gain: Float, curve: FadeCurve) {
        self.frame = frame
        self.attackFrames = attackFrames
        self.gain = gain
        self.curve = curve
    }

    /// The gain at `frame` (an absolute frame): 1 before the attack, `gain` from the line on.
    @inline(__always)
    public func gain(at f: Int64) -> Float {
        if f >= frame { return gain }
        let into = f - (frame - attackFrames)
        guard into >= 0, attackFrames > 0 else { return 1 }
        let depth = curve.value(at: Double(into + 1) / Double(attackFrames))
        return Float(1 - depth * Double(1 - gain))
    }
}
