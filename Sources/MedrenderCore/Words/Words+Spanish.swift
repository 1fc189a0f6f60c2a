extension Words {
    /// Español.
    public static let spanish = Words(
        breatheIn: "Inhala", breatheInMore: "Inhala un poco más", hold: "Mantén", breatheOut: "Exhala",
        settle: "Llegada", breathing: "Respiración", closing: "Cierre", bell: "Campana", tick: "Tic", voice: "Voz")
}
