extension Words {
    /// Italiano.
    public static let italian = Words(
        breatheIn: "Inspira", breatheInMore: "Inspira ancora un po'", hold: "Trattieni", breatheOut: "Espira",
        settle: "Preparazione", breathing: "Respirazione", closing: "Chiusura", bell: "Campana", tick: "Tic", voice: "Voce")
}
