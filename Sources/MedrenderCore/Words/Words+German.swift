// The words a listener meets in Deutsch (de): spoken prompts and lead-in, captions, cue-sheet labels,
// chapter names and the preview page's labels. Written with care from the meaning of the English
// table; they await a check by a native reader (none has checked them yet).
extension Words {
    /// Deutsch.
    public static let german = Words(
        breatheIn: "Einatmen", breatheInMore: "Noch etwas mehr einatmen", hold: "Halten", breatheOut: "Ausatmen",
        settle: "Ankommen", breathing: "Atmen", closing: "Ausklang", bell: "Glocke", tick: "Tick", voice: "Stimme",
        numbers: ["Eins", "Zwei", "Drei", "Vier", "Fünf"],
        settleIn: "Ankommen", rest: "Ruhen", section: "Abschnitt", cycle: "Zyklus",
        elapsed: "Vergangen", remaining: "Verbleibend", seekHint: "Zeitleiste: zum Springen klicken", preview: "Vorschau",
        holdIn: "Halten (eingeatmet)", holdOut: "Halten (ausgeatmet)", ambience: "Hintergrund", circleSize: "Kreisgröße")
}
