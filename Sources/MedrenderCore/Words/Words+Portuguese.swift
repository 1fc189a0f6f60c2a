extension Words {
    /// Português.
    public static let portuguese = Words(
        breatheIn: "Inspire", breatheInMore: "Inspire mais um pouco", hold: "Segure", breatheOut: "Expire",
        settle: "Chegada", breathing: "Respiração", closing: "Encerramento", bell: "Sino", tick: "Tique", voice: "Voz")
}
