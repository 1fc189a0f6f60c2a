extension Words {
    /// Français.
    public static let french = Words(
        breatheIn: "Inspirez", breatheInMore: "Inspirez encore un peu", hold: "Retenez", breatheOut: "Expirez",
        settle: "Installation", breathing: "Respiration", closing: "Retour", bell: "Cloche", tick: "Tic", voice: "Voix")
}
