/// A voice clip at a set time.
public struct TimedClip: Hashable, Sendable {
    public var sound: SoundRef
    /// When it starts, from the start of the file.
    public var at: SessionTime
    public init(sound: SoundRef, at: SessionTime) {
        self.sound = sound
        self.at = at
    }
}

/// Guided voice: intro and outro, per-phase prompts, clips at set times, one long track, and the
/// ducking of the ambience under all of them.
public struct VoiceSettings: Hashable, Sendable {
    public var intro: SoundRef?
    /// When the intro starts, from the start of the file. Default 2 s.
    public var introAt: SessionTime
    public var outro: SoundRef?
    /// When the outro starts, after the last breath. Default 1 s.
    public var outroAfter: SessionTime
    /// The loudness every voice clip plays at, in LUFS, −70…−10, default −20: each clip's gain
    /// is set from its measured loudness.
    public var levelLUFS: Double
    /// A spoken count before the first breath ("three, two, one"): the clips in order, the last
    /// one second before the first breath, each cut at the next second. Empty by default.
    public var leadIn: [SoundRef] = []
    /// A prompt for each phase kind, spoken on the phase's first frame for the first `promptCycles` cycles.
    public var prompts: [PhaseKind: SoundRef] = [:]
    /// What the prompts and the lead-in spoken by the script's voice say, by their sound: the
    /// words the captions, the cue sheet and the preview page show for them.
    public var spokenTexts: [SoundRef: String] = [:]
    /// The voice that spoke the script, the prompts and the lead-in, as `ENGINE:VOICE`, once they
    /// are synthesized (the first installed of the script's choices); nil when nothing is spoken.
    public var speaker: String?
    /// How many cycles get prompts, 0…1000, default 3.
    public var promptCycles: Int = 3
    /// Whether the phases with no prompt clip get one spoken by the script's voice, in the
    /// session's language, from its table of words (`prompts: spoken`). Default false.
    public var spokenPrompts = false
    /// How many numbers a spoken lead-in counts down (`lead-in: spoken` counts 3), in the
    /// session's language, 0…5; 0 (the default) for none.
    public var spokenLeadIn = 0
    /// Clips at set times.
    public var clips: [TimedClip] = []
    /// One long guided track that plays for its own length.
    public var track: SoundRef?
    /// When the track starts, default 0.
    public var trackAt: SessionTime = .zero
    /// How far the ambience dips under any voice, in dB, −40…0, default −8 (−15 in a session
    /// with a guided script, see `guidedDuckDecibels`).
    public var duckDecibels: Double = -8
    /// Whether the preset gave `duck:` itself (else a guided script's default applies).
    public var duckGiven = false
    /// How far the ambience dips under the voice of a session with a guided script when the
    /// preset does not say: −15 dB, the deep end of what broadcast voice-over ducks (6–12 dB), as
    /// the stock beds sit only 8–10 LU under the words before the dip: the words stay 23–25 dB
    /// over the bed while the sea or the rain stays heard between them.
    public static let guidedDuckDecibels = -15.0
    /// How long the dip takes to reach its depth, ending as the voice starts; default 0.3 s
    /// (2 s in a session with a guided script, `guidedDuckAttack`).
    public var duckAttack: SessionTime = .init(milliseconds: 300)
    /// How long the ambience takes to come back after the voice ends; default 0.8 s (3 s in a
    /// session with a guided script, `guidedDuckRelease`).
    public var duckRelease: SessionTime = .init(milliseconds: 800)
    /// Whether the preset gave `duck-attack:` or `duck-release:` itself.
    public var duckAttackGiven = false, duckReleaseGiven = false
    /// A guided script's dip and return: slow enough that the bed changes by no more than 6 dB in
    /// any 100 ms (on the half-cosine, 15 dB over 2 s moves at most 1.9 dB in 100 ms, leaving
    /// room for the bed's own flutter; over the 0.3 s of a prompt's dip, 7.9 dB), so it is not
    /// heard switching off and on around each line.
    public static let guidedDuckAttack = SessionTime(milliseconds: 2000)
    public static let guidedDuckRelease = SessionTime(milliseconds: 3000)
    /// The shape of the dip's attack and release, default half-cosine.
    public var duckCurve: FadeCurve = .halfCosine
    /// How long the ambience stays down between two voice clips before it comes back, 0…30 s,
    /// default 2 s: dips closer than attack + release + this merge into one, so prompts a few
    /// seconds apart do not pump the bed.
    public var duckHold: SessionTime = .seconds(2)
    /// How far a phase's cue drops while that phase's prompt speaks, in dB, −40…0, default −10
    /// (−22 in a session with a guided script, see `guidedCueUnderPromptDecibels`): the prompt is
    /// heard over the cue, and the cue still marks the phase. A cue that starts under a line of a
    /// guided script drops as far; one that starts before a line and rings into it dips only from
    /// the line's first frame (`CueDip`). Bells dip as far under any voice. 0 dB: nothing dips.
    public var cueUnderPromptDecibels: Double = -10
    /// Whether the preset gave `cue-under-prompt:` itself (else a guided script's default applies).
    public var cueUnderPromptGiven = false
    /// How far cues and bells dip under the voice of a session with a guided script when the
    /// preset does not say: −22 dB, so whatever sounds under a sentence stays at least 18 dB below
    /// its words (at −10 dB a bowl cue under a line came within 8 dB of them; at −20, once lines
    /// were spoken at a teacher's pace, with room between their phrases, within 17.5 dB).
    public static let guidedCueUnderPromptDecibels = -22.0

    public init(
        intro: SoundRef? = nil, introAt: SessionTime = .seconds(2), outro: SoundRef? = nil,
        outroAfter: SessionTime = .seconds(1), levelLUFS: Double = -20
    ) {
        self.intro = intro
        self.introAt = introAt
        self.outro = outro
        self.outroAfter = outroAfter
        self.levelLUFS = levelLUFS
    }

    /// The dips of a session with a guided script, where the preset does not give them: spoken
    /// sentences over a bed, where one-word prompts dip less and faster.
    public mutating func useGuidedDefaults() {
        if !duckGiven { duckDecibels = Self.guidedDuckDecibels }
        if !duckAttackGiven { duckAttack = Self.guidedDuckAttack }
        if !duckReleaseGiven { duckRelease = Self.guidedDuckRelease }
        // Cues and bells under a sentence dip deeper than under a one-word prompt.
        if !cueUnderPromptGiven { cueUnderPromptDecibels = Self.guidedCueUnderPromptDecibels }
    }
}
