/// A synthesized cue timbre.
public enum CueTimbre: String, CaseIterable, Hashable, Sendable {
    /// A sine with a short raised-cosine attack and a smooth decay.
    case pure
    /// Decaying inharmonic partials, a small hand bell.
    case bell
    /// A singing bowl: low partials with a slow beat.
    case bowl
    /// A soft woodblock tick.
    case tick

    /// How long a struck timbre rings before it has fallen by 60 dB: a bell or a bowl rings out
    /// for this long (at least), into the next phase if need be; nil for the timbres that are
    /// shaped to their length and cut at the end of their phase.
    public var ringOut: SessionTime? {
        switch self {
        case .bell: .init(milliseconds: 1600)
        case .bowl: .seconds(4)
        case .pure, .tick: nil
        }
    }
}

/// What sounds at the start of one kind of phase.
public struct CueSound: Hashable, Sendable {
    public enum Source: Hashable, Sendable {
        case synth(CueTimbre)
        case sound(SoundRef)
    }
    public var source: Source
    /// Pitch of a synthesized cue in hertz, 50…4000.
    public var pitchHertz: Double
    /// Gain in decibels, −60…0.
    public var gainDecibels: Double
    /// The cue's length. A bell or bowl rings for its natural decay when that is longer
    /// (`CueTimbre.ringOut`), into the next phase if need be; any other cue is cut, ramped to
    /// zero, at its length or at the end of its phase.
    public var length: SessionTime
    /// Stereo position, −1 (left) … 1 (right), default 0.
    public var pan: Double

    public init(
        source: Source, pitchHertz: Double, gainDecibels: Double = -12,
        length: SessionTime = .init(milliseconds: 600), pan: Double = 0
    ) {
        self.source = source
        self.pitchHertz = pitchHertz
        self.gainDecibels = gainDecibels
        self.length = length
        self.pan = pan
    }

    /// How long the cue sounds: its length, or a bell's or bowl's natural ring when longer.
    public var soundingLength: SessionTime {
        if case .synth(let timbre) = source, let ring = timbre.ringOut { return max(length, ring) }
        return length
    }

    /// Whether the cue rings on past the end of its phase.
    public var ringsOut: Bool {
        if case .synth(let timbre) = source { return timbre.ringOut != nil }
        return false
    }

    /// The default cue for each phase kind: a distinct pitch per kind, so the ear knows the phase.
    public static func standard(for kind: PhaseKind) -> CueSound {
        switch kind {
        case .inhale: CueSound(source: .synth(.bell), pitchHertz: 659.26)  // E5
        case .holdIn: CueSound(source: .synth(.pure), pitchHertz: 493.88, gainDecibels: -16)  // B4
        case .topUp: CueSound(source: .synth(.bell), pitchHertz: 783.99)  // G5
        case .exhale: CueSound(source: .synth(.bell), pitchHertz: 440.00)  // A4
        case .holdOut: CueSound(source: .synth(.pure), pitchHertz: 392.00, gainDecibels: -16)  // G4
        }
    }
}

/// The cues of a session, one per phase kind; nil means that phase has no cue.
public struct CueSet: Hashable, Sendable {
    private var sounds: [CueSound?]
    public init(_ sounds: [PhaseKind: CueSound?] = [:]) {
        self.sounds = PhaseKind.allCases.map { sounds[$0] ?? CueSound.standard(for: $0) }
    }
    public subscript(kind: PhaseKind) -> CueSound? {
        get { sounds[PhaseKind.allCases.firstIndex(of: kind)!] }
        set { sounds[PhaseKind.allCases.firstIndex(of: kind)!] = newValue }
    }
}
