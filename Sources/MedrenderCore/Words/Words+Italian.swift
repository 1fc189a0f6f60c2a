// The words a listener meets in Italiano (it): spoken prompts and lead-in, captions, cue-sheet labels,
// chapter names and the preview page's labels. Written with care from the meaning of the English
// table; they await a check by a native reader (none has checked them yet).
extension Words {
    /// Italiano.
    public static let italian = Words(
        breatheIn: "Inspira", breatheInMore: "Inspira ancora un po'", hold: "Trattieni", breatheOut: "Espira",
        settle: "Preparazione", breathing: "Respirazione", closing: "Chiusura", bell: "Campana", tick: "Tic", voice: "Voce",
        numbers: ["Uno", "Due", "Tre", "Quattro", "Cinque"],
        settleIn: "Mettiti comodo", rest: "Riposa", section: "Parte", cycle: "Ciclo",
        elapsed: "Trascorso", remaining: "Rimanente", seekHint: "Linea del tempo: fai clic per spostarti", preview: "anteprima",
        holdIn: "Trattieni (pieno)", holdOut: "Trattieni (vuoto)", ambience: "ambiente", circleSize: "dimensione del cerchio")
}
