// The words a listener meets in English (en): spoken prompts and lead-in, captions, cue-sheet labels,
// chapter names and the preview page's labels. Written with care from the meaning of the English
// table; they await a check by a native reader (none has checked them yet).
extension Words {
    /// English.
    public static let english = Words(
        breatheIn: "Breathe in", breatheInMore: "Breathe in a little more", hold: "Hold", breatheOut: "Breathe out",
        settle: "Settle", breathing: "Breathing", closing: "Closing", bell: "Bell", tick: "Tick", voice: "Voice",
        numbers: ["One", "Two", "Three", "Four", "Five"],
        settleIn: "Settle in", rest: "Rest", section: "Section", cycle: "Cycle",
        elapsed: "Elapsed", remaining: "Remaining", seekHint: "Timeline: click to seek", preview: "preview",
        holdIn: "hold (in)", holdOut: "hold (out)", ambience: "ambience", circleSize: "circle size")
}
