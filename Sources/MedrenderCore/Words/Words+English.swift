// English's words, built in: a `Session`'s language until a preset or request names one, and
// what Core's own tests plan with. The words a render uses come from the catalogs (`Languages/`,
// loaded by MedrenderPresets' `LanguageCatalog`), whose `en.yml` says the same (a test holds them
// to it); a library's `Languages/en.yml` corrects them there, not here.
extension Words {
    /// English, as `Languages/en.yml` has it.
    public static let english = Words(
        breatheIn: "Breathe in", breatheInMore: "Breathe in a little more", hold: "Hold", breatheOut: "Breathe out",
        settle: "Settle", breathing: "Breathing", closing: "Closing", bell: "Bell", tick: "Tick", voice: "Voice",
        numbers: ["One", "Two", "Three", "Four", "Five"],
        settleIn: "Settle in", rest: "Rest", section: "Section", cycle: "Cycle",
        elapsed: "Elapsed", remaining: "Remaining", seekHint: "Timeline: click to seek", preview: "preview",
        holdIn: "hold (in)", holdOut: "hold (out)", ambience: "ambience", circleSize: "circle size",
        headphonesNote: "Binaural beats: listen with headphones.")
}

extension Language {
    /// English (`en`), built in: the default until a preset or request names a language.
    public static let english = Language(tag: "en", name: "English", words: .english)
}
