// The words a listener meets in Español (es): spoken prompts and lead-in, captions, cue-sheet labels,
// chapter names and the preview page's labels. Written with care from the meaning of the English
// table; they await a check by a native reader (none has checked them yet).
extension Words {
    /// Español.
    public static let spanish = Words(
        breatheIn: "Inhala", breatheInMore: "Inhala un poco más", hold: "Mantén", breatheOut: "Exhala",
        settle: "Llegada", breathing: "Respiración", closing: "Cierre", bell: "Campana", tick: "Tic", voice: "Voz",
        numbers: ["Uno", "Dos", "Tres", "Cuatro", "Cinco"],
        settleIn: "Acomódate", rest: "Descansa", section: "Parte", cycle: "Ciclo",
        elapsed: "Transcurrido", remaining: "Restante", seekHint: "Línea de tiempo: haz clic para saltar", preview: "vista previa",
        holdIn: "Mantén (lleno)", holdOut: "Mantén (vacío)", ambience: "ambiente", circleSize: "tamaño del círculo")
}
