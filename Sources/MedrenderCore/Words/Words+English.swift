extension Words {
    /// English.
    public static let english = Words(
        breatheIn: "Breathe in", breatheInMore: "Breathe in a little more", hold: "Hold", breatheOut: "Breathe out",
        settle: "Settle", breathing: "Breathing", closing: "Closing", bell: "Bell", tick: "Tick", voice: "Voice")
}
