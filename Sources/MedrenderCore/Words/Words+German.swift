extension Words {
    /// Deutsch.
    public static let german = Words(
        breatheIn: "Einatmen", breatheInMore: "Noch etwas mehr einatmen", hold: "Halten", breatheOut: "Ausatmen",
        settle: "Ankommen", breathing: "Atmen", closing: "Ausklang", bell: "Glocke", tick: "Tick", voice: "Stimme")
}
