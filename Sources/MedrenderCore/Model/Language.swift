/// A language of the words a listener meets: prompts, captions, labels, chapter names.
public enum Language: String, Hashable, Sendable, CaseIterable, Codable {
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
    /// The numbers a spoken lead-in counts, from one up: "One", "Two", "Three", "Four", "Five".
    public var numbers: [String]
    /// The preview's label before the first breath ("Settle in") and after the last ("Rest").
    public var settleIn: String
    public var rest: String
    /// The preview page's facts: "Section", "Cycle", "Elapsed", "Remaining".
    public var section: String
    public var cycle: String
    public var elapsed: String
    public var remaining: String
    /// The preview's timeline, for screen readers: "Timeline: click to seek".
    public var seekHint: String
    /// The preview page's title after the session's name: "preview".
    public var preview: String
    /// The plot's legend: the two holds told apart, the ambience, the circle's size.
    public var holdIn: String
    public var holdOut: String
    public var ambience: String
    public var circleSize: String

    /// The instruction for a phase, as prompts and captions say it.
    public func instruction(_ kind: PhaseKind) -> String {
        switch kind {
        case .inhale: breatheIn
        case .topUp: breatheInMore
        case .holdIn, .holdOut: hold
        case .exhale: breatheOut
        }
    }

    /// The words of a spoken lead-in of `count` numbers (1…5), in the order spoken: three, two, one.
    public func countdown(_ count: Int) -> [String] {
        Array(numbers.prefix(count).reversed())
    }

    /// A section's name in this language (settle, breathing, closing), or a segment's own name as
    /// it is written, whatever it says.
    public func section(_ section: SessionSection) -> String {
        switch section.kind {
        case .settle: settle
        case .breathing: breathing
        case .closing: closing
        case .segment: section.name
        }
    }
}
