/// A sound named by a preset: a name from the sound library (`rain`) or a path to a file.
public struct SoundRef: Hashable, Sendable, CustomStringConvertible {
    /// What the author wrote.
    public var name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}

/// The four layers a session is mixed from; `--layers` picks among them.
public enum Layer: String, CaseIterable, Hashable, Sendable {
    case cues, voice, ambience, bells
}

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
    /// The cue's length; a cue is always cut, ramped to zero, at the end of its phase.
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

/// A soft tick each second through a phase (not on its first frame, where the cue sounds).
public struct Metronome: Hashable, Sendable {
    public var phases: Set<PhaseKind>
    /// Gain in decibels, −60…0, default −30.
    public var gainDecibels: Double
    /// Pitch of the tick in hertz, 50…4000, default 1200.
    public var pitchHertz: Double
    public init(phases: Set<PhaseKind> = Set(PhaseKind.allCases), gainDecibels: Double = -30, pitchHertz: Double = 1200) {
        self.phases = phases
        self.gainDecibels = gainDecibels
        self.pitchHertz = pitchHertz
    }
}

/// A continuous sound that follows the breath: it rises through each inhale, holds, and falls
/// through each exhale — an expanding breathing circle, in sound.
public struct BreathSwell: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// A soft tone: the pitch and a fifth above.
        case tone
        /// Low-passed noise, like breath itself.
        case noise
    }
    public var kind: Kind
    /// Pitch of the tone in hertz, 50…2000, default 220.
    public var pitchHertz: Double
    /// Gain at the top of the breath in decibels, −60…0, default −24.
    public var gainDecibels: Double
    public var curve: FadeCurve
    public init(kind: Kind = .tone, pitchHertz: Double = 220, gainDecibels: Double = -24, curve: FadeCurve = .halfCosine) {
        self.kind = kind
        self.pitchHertz = pitchHertz
        self.gainDecibels = gainDecibels
        self.curve = curve
    }
}

/// One ambience bed: a loop from the sound library.
public struct AmbienceBed: Hashable, Sendable {
    public var sound: SoundRef
    /// The loudness the bed plays at, in LUFS, −70…−10, default −28: set from the bed's measured
    /// loudness, not its peak, so rain and ocean at the same level sound equally loud.
    public var levelLUFS: Double
    /// Length of the equal-power crossfade baked into the loop's seam, default 3 s.
    public var seam: SessionTime
    /// Where this bed takes over from the one before it; nil shares the session equally.
    public var from: BedStart?

    public init(sound: SoundRef, levelLUFS: Double = -28, seam: SessionTime = .seconds(3), from: BedStart? = nil) {
        self.from = from
        self.sound = sound
        self.levelLUFS = levelLUFS
        self.seam = seam
    }
}

/// Where a bed takes over from the one before it.
public enum BedStart: Hashable, Sendable {
    /// A fraction of the whole session, 0…1.
    case fraction(Double)
    /// A time from the start of the file.
    case time(SessionTime)
}

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
    /// A prompt for each phase kind, spoken on the phase's first frame for the first `promptCycles` cycles.
    public var prompts: [PhaseKind: SoundRef] = [:]
    /// How many cycles get prompts, 0…1000, default 3.
    public var promptCycles: Int = 3
    /// Clips at set times.
    public var clips: [TimedClip] = []
    /// One long guided track that plays for its own length.
    public var track: SoundRef?
    /// When the track starts, default 0.
    public var trackAt: SessionTime = .zero
    /// How far the ambience dips under any voice, in dB, −40…0, default −8.
    public var duckDecibels: Double = -8
    /// How long the dip takes to reach its depth, ending as the voice starts; default 0.3 s.
    public var duckAttack: SessionTime = .init(milliseconds: 300)
    /// How long the ambience takes to come back after the voice ends; default 0.8 s.
    public var duckRelease: SessionTime = .init(milliseconds: 800)
    /// The shape of the dip's attack and release, default half-cosine.
    public var duckCurve: FadeCurve = .halfCosine

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
}

/// Bells at the start and the end of the session.
public struct BellSettings: Hashable, Sendable {
    public var start: SoundRef?
    public var end: SoundRef?
    /// Gain in decibels, −60…12, default −6.
    public var gainDecibels: Double
    /// The sound of interval bells and bells at listed times (default: the start bell).
    public var interval: SoundRef?
    /// A bell every this long during the breathing section (from its start), when set.
    public var every: SessionTime?
    /// Bells at these times from the start of the file.
    public var at: [SessionTime] = []
    /// A soft tick on each of the last N seconds of the breathing section, 0…60, default 0 (off).
    public var countdownSeconds: Int = 0

    public init(start: SoundRef? = nil, end: SoundRef? = nil, gainDecibels: Double = -6) {
        self.start = start
        self.end = end
        self.gainDecibels = gainDecibels
    }
}

/// The master chain's settings.
public struct MasterSettings: Hashable, Sendable {
    /// Integrated loudness target in LUFS, −70…−5, default −18.
    public var loudnessLUFS: Double
    /// True-peak ceiling in dBTP, −20…0, default −1.
    public var truePeakDBTP: Double
    /// Fade at the very start of the file, default 0 (the ambience has its own fade).
    public var fadeIn: SessionTime
    /// Fade at the very end of the file, default 3 s.
    public var fadeOut: SessionTime
    public var fadeCurve: FadeCurve

    public init(
        loudnessLUFS: Double = -18, truePeakDBTP: Double = -1, fadeIn: SessionTime = .zero,
        fadeOut: SessionTime = .seconds(3), fadeCurve: FadeCurve = .quarterSine
    ) {
        self.loudnessLUFS = loudnessLUFS
        self.truePeakDBTP = truePeakDBTP
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
        self.fadeCurve = fadeCurve
    }
}

/// A whole session, resolved from a preset: everything the planner needs, in exact times.
public struct Session: Hashable, Sendable {
    public var name: String
    public var description: String
    /// The length used when the command line gives none.
    public var defaultLength: SessionLength
    public var segments: [PatternSegment]
    /// Time before the first breath: start bell, intro voice, ambience fading in. Default 20 s.
    public var settle: SessionTime
    /// The least time after the last breath: outro voice, end bell, fade out. Default 30 s.
    public var closing: SessionTime
    public var cues: CueSet
    public var voice: VoiceSettings
    public var ambience: [AmbienceBed]
    /// How long the ambience takes to fade in at the start, default 8 s.
    public var ambienceFadeIn: SessionTime
    /// How long the ambience takes to fade out at the end, default 12 s.
    public var ambienceFadeOut: SessionTime
    public var bells: BellSettings
    public var master: MasterSettings
    /// Seed for everything random (loop start offsets, dither), default 1.
    public var seed: UInt64
    /// Title, artist and the like, for the file's tags.
    public var metadata = SessionMetadata()
    /// What the preset allows its phases to be (overrides included).
    public var limits: PatternLimits = .none
    /// How long one bed takes to crossfade into the next, default 10 s.
    public var ambienceCrossfade: SessionTime = .seconds(10)
    /// The curve of the ambience's fades and crossfades; quarter-sine keeps the power of two
    /// uncorrelated beds constant through a crossfade. Default quarter-sine.
    public var ambienceCurve: FadeCurve = .quarterSine
    /// A soft tick each second through chosen phases, when set.
    public var metronome: Metronome?
    /// A soft tone or noise that rises through each inhale and falls through each exhale, when set.
    public var swell: BreathSwell?

    public init(
        name: String, description: String = "", defaultLength: SessionLength = .duration(.seconds(600)),
        segments: [PatternSegment], settle: SessionTime = .seconds(20), closing: SessionTime = .seconds(30),
        cues: CueSet = CueSet(), voice: VoiceSettings = VoiceSettings(), ambience: [AmbienceBed] = [],
        ambienceFadeIn: SessionTime = .seconds(8), ambienceFadeOut: SessionTime = .seconds(12),
        bells: BellSettings = BellSettings(), master: MasterSettings = MasterSettings(), seed: UInt64 = 1
    ) {
        self.name = name
        self.description = description
        self.defaultLength = defaultLength
        self.segments = segments
        self.settle = settle
        self.closing = closing
        self.cues = cues
        self.voice = voice
        self.ambience = ambience
        self.ambienceFadeIn = ambienceFadeIn
        self.ambienceFadeOut = ambienceFadeOut
        self.bells = bells
        self.master = master
        self.seed = seed
    }

    /// Every sound file the session names, each once, in a stable order.
    public var soundsUsed: [SoundRef] {
        var seen: [SoundRef] = []
        func add(_ ref: SoundRef?) { if let ref, !seen.contains(ref) { seen.append(ref) } }
        add(bells.start)
        add(voice.intro)
        add(voice.track)
        for kind in PhaseKind.allCases { add(voice.prompts[kind]) }
        for clip in voice.clips { add(clip.sound) }
        add(bells.interval)
        for bed in ambience { add(bed.sound) }
        for kind in PhaseKind.allCases {
            if case .sound(let ref)? = cues[kind]?.source { add(ref) }
        }
        add(voice.outro)
        add(bells.end)
        return seen
    }
}

/// How long a session is: a total duration, or a number of whole breath cycles.
public enum SessionLength: Hashable, Sendable {
    /// The whole file's length; the breathing takes the whole cycles that fit.
    case duration(SessionTime)
    /// Whole breath cycles; the file is settle + cycles + closing long.
    case cycles(Int)
}

/// The tags a rendered file carries; empty fields are left out.
public struct SessionMetadata: Hashable, Sendable {
    /// The title; defaults to the session's name.
    public var title: String?
    public var artist: String?
    public var album: String?
    public var date: String?
    public var comment: String?
    public init() {}
}

/// What a sound is for, so a missing one can be replaced by a bundled sound of the same role.
public enum SoundRole: String, Hashable, Sendable {
    case ambience, voice, bell
}

extension Session {
    /// The role `ref` plays in this session, and the bundled sound that can stand in for it.
    public func stockReplacement(for ref: SoundRef) -> (role: SoundRole, stock: SoundRef)? {
        if ambience.contains(where: { $0.sound == ref }) { return (.ambience, SoundRef("rain")) }
        if voice.outro == ref { return (.voice, SoundRef("voice-outro")) }
        if voice.intro == ref || voice.track == ref || voice.clips.contains(where: { $0.sound == ref }) {
            return (.voice, SoundRef("voice-intro"))
        }
        for (kind, prompt) in voice.prompts where prompt == ref {
            switch kind {
            case .inhale, .topUp: return (.voice, SoundRef("voice-breathe-in"))
            case .holdIn, .holdOut: return (.voice, SoundRef("voice-hold"))
            case .exhale: return (.voice, SoundRef("voice-breathe-out"))
            }
        }
        if bells.start == ref || bells.end == ref || bells.interval == ref { return (.bell, SoundRef("bell")) }
        for kind in PhaseKind.allCases {
            if case .sound(let r)? = cues[kind]?.source, r == ref { return (.bell, SoundRef("bell")) }
        }
        return nil
    }
}
