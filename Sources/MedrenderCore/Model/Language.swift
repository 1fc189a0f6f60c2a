/// A language of the words a listener meets: prompts, captions, labels, chapter names.
public enum Language: String, Hashable, Sendable, CaseIterable {
    case english = "en"
    case german = "de"
    case french = "fr"
    case spanish = "es"
    case italian = "it"
    case portuguese = "pt"

    /// Its table of words (one file per language in `Words/`).
    public var words: Words {
        switch self {
        case .english: .english
        case .german: .german
        case .french: .french
        case .spanish: .spanish
        case .italian: .italian
        case .portuguese: .portuguese
        }
    }
}

/// The words of one language, looked up by key, never written inline.
public struct Words: Hashable, Sendable {
    public var breatheIn: String
    public var breatheInMore: String
    public var hold: String
    public var breatheOut: String
    public var settle: String
    public var breathing: String
    public var closing: String
    public var bell: String
    public var tick: String
    public var voice: String

    /// The instruction for a phase, as prompts and captions say it.
    public func instruction(_ kind: PhaseKind) -> String {
        switch kind {
        case .inhale: breatheIn
        case .topUp: breatheInMore
        case .holdIn, .holdOut: hold
        case .exhale: breatheOut
        }
    }

    /// A section's name in this language (`Settle`, `Breathing`, `Closing`), or `name` as it is
    /// (a segment's own name).
    public func section(_ name: String) -> String {
        switch name {
        case "Settle": settle
        case "Breathing": breathing
        case "Closing": closing
        default: name
        }
    }
}
