// The words a listener meets in Português (pt): spoken prompts and lead-in, captions, cue-sheet labels,
// chapter names and the preview page's labels. Written with care from the meaning of the English
// table; they await a check by a native reader (none has checked them yet).
extension Words {
    /// Português.
    public static let portuguese = Words(
        breatheIn: "Inspire", breatheInMore: "Inspire mais um pouco", hold: "Segure", breatheOut: "Expire",
        settle: "Chegada", breathing: "Respiração", closing: "Encerramento", bell: "Sino", tick: "Tique", voice: "Voz",
        numbers: ["Um", "Dois", "Três", "Quatro", "Cinco"],
        settleIn: "Acomode-se", rest: "Descanse", section: "Parte", cycle: "Ciclo",
        elapsed: "Decorrido", remaining: "Restante", seekHint: "Linha do tempo: clique para avançar", preview: "pré-visualização",
        holdIn: "Segure (cheio)", holdOut: "Segure (vazio)", ambience: "ambiente", circleSize: "tamanho do círculo")
}
