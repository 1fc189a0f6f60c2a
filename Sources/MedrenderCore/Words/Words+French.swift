// The words a listener meets in Français (fr): spoken prompts and lead-in, captions, cue-sheet labels,
// chapter names and the preview page's labels. Written with care from the meaning of the English
// table; they await a check by a native reader (none has checked them yet).
extension Words {
    /// Français.
    public static let french = Words(
        breatheIn: "Inspirez", breatheInMore: "Inspirez encore un peu", hold: "Retenez", breatheOut: "Expirez",
        settle: "Installation", breathing: "Respiration", closing: "Retour", bell: "Cloche", tick: "Tic", voice: "Voix",
        numbers: ["Un", "Deux", "Trois", "Quatre", "Cinq"],
        settleIn: "Installez-vous", rest: "Repos", section: "Partie", cycle: "Cycle",
        elapsed: "Écoulé", remaining: "Restant", seekHint: "Chronologie : cliquez pour vous y rendre", preview: "aperçu",
        holdIn: "Retenez (poumons pleins)", holdOut: "Retenez (poumons vides)", ambience: "ambiance", circleSize: "taille du cercle")
}
