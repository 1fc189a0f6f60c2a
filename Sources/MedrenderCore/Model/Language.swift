/// A language of the words a listener meets (prompts, captions, labels, chapter names), known by
/// its BCP 47 tag (`en`, `de`, `pt-BR`), with its table of words.
///
/// The tables are catalog files (`Languages/TAG.yml`), read by MedrenderPresets' `LanguageCatalog`;
/// Core only carries the words it is given (and English, built in, as the default).
public struct Language: Hashable, Sendable {
    /// The BCP 47 tag as the catalog spells it: `en`, `de`, `pt-BR`, `pt-PT`.
    public var tag: String
    /// The language's name in itself: "Deutsch", "Português (Brasil)".
    public var name: String
    /// Its table of words.
    public var words: Words
    /// What the tag asked for was read as, when it was not this language's own tag: "'pt' is read
    /// as pt-BR …"; nil otherwise. A render's report shows it.
    public var note: String?

    public init(tag: String, name: String, words: Words, note: String? = nil) {
        self.tag = tag
        self.name = name
        self.words = words
        self.note = note
    }

    /// The tag's first subtag, lowercased: `pt` for `pt-BR`, `en` for `en`.
    public var primarySubtag: String {
        String(tag.split(separator: "-", maxSplits: 1).first ?? Substring(tag)).lowercased()
    }

    /// The tag's region subtag, uppercased, when it has one: `BR` for `pt-BR`, nil for `de`.
    public var regionSubtag: String? {
        tag.split(separator: "-").dropFirst().first { $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isNumber)) }
            .map { $0.uppercased() }
    }

    /// Whether this is English (any region): section names are lowercased in the plot's legend.
    public var isEnglish: Bool { primarySubtag == "en" }
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
    /// The note a file with binaural beats carries in its comment tag: they are heard only when
    /// each ear gets its own channel.
    public var headphonesNote: String

    public init(breatheIn: String, breatheInMore: String, hold: String, breatheOut: String, settle: String, breathing: String,
                closing: String, bell: String, tick: String, voice: String, numbers: [String], settleIn: String, rest: String,
                section: String, cycle: String, elapsed: String, remaining: String, seekHint: String, preview: String,
                holdIn: String, holdOut: String, ambience: String, circleSize: String, headphonesNote: String) {
        self.breatheIn = breatheIn
        self.breatheInMore = breatheInMore
        self.hold = hold
        self.breatheOut = breatheOut
        self.settle = settle
        self.breathing = breathing
        self.closing = closing
        self.bell = bell
        self.tick = tick
        self.voice = voice
        self.numbers = numbers
        self.settleIn = settleIn
        self.rest = rest
        self.section = section
        self.cycle = cycle
        self.elapsed = elapsed
        self.remaining = remaining
        self.seekHint = seekHint
        self.preview = preview
        self.holdIn = holdIn
        self.holdOut = holdOut
        self.ambience = ambience
        self.circleSize = circleSize
        self.headphonesNote = headphonesNote
    }

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
