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
    /// Credits the preset gives its own sounds (`credits:`), by the name the preset uses; they
    /// come before any credits file.
    public var soundCredits: [String: SoundCredit] = [:]
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
    /// The guided script (`guide:`), when the preset has one.
    public var guide: GuideScript?
    /// The language of the words a listener meets and of the script's voice, default English.
    public var language: Language = .english
    /// Binaural, isochronic or monaural beats (`beats:`), when set.
    public var beats: Beats?
    /// Whether the session is as long as its script needs (`minutes: fit`, `--minutes fit`).
    public var fitsGuide = false
    /// Where the time left after segments that all have a length goes (`fill:`); nil when the
    /// preset does not say, which gives it to the closing, with a warning.
    public var fill: SpareTimeFill?

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
        for line in guide?.lines ?? [] { if case .clip(let ref, _) = line.content { add(ref) } }
        add(guide?.recording?.sound)
        add(bells.interval)
        for bed in ambience where bed.generator == nil { add(bed.sound) }
        for kind in PhaseKind.allCases {
            if case .sound(let ref)? = cues[kind]?.source { add(ref) }
        }
        for ref in voice.leadIn { add(ref) }
        for segment in segments {
            add(segment.voice)
            add(segment.ambience?.sound)
            for kind in PhaseKind.allCases {
                if case .sound(let ref)? = segment.cues[kind]??.source { add(ref) }
            }
        }
        add(voice.outro)
        add(bells.end)
        return seen
    }
}

extension Session {
    /// The sounds the voice speaks: intro, track, prompts, clips, lead-in, outro, the segments'
    /// voices and the guided script's lines (recorded, synthesized or cut from a take).
    public var voiceSounds: Set<SoundRef> {
        var refs = Set([voice.intro, voice.track, voice.outro].compactMap { $0 } + voice.prompts.values + voice.clips.map(\.sound)
            + voice.leadIn + segments.compactMap(\.voice))
        for line in guide?.lines ?? [] { if let ref = line.sound { refs.insert(ref) } }
        return refs
    }
}

/// How long a session is: a total duration, or a number of whole breath cycles.
public enum SessionLength: Hashable, Sendable {
    /// The whole file's length; the breathing takes the whole cycles that fit.
    case duration(SessionTime)
    /// Whole breath cycles; the file is settle + cycles + closing long.
    case cycles(Int)
}

extension Session {
    /// The length the preset was written for: its `minutes`, or for a preset timed in cycles,
    /// settle + those cycles (at the first pattern's length) + closing.
    public var ownLength: SessionTime {
        switch defaultLength {
        case .duration(let d): return d
        case .cycles(let n): return settle + closing + (segments.first?.pattern.cycleLength ?? .zero) * Int64(n)
        }
    }
}

/// Who made a sound and under what license, as the output's tags credit it.
public struct SoundCredit: Hashable, Sendable {
    public var author: String
    public var license: String
    public init(author: String, license: String) {
        self.author = author
        self.license = license
    }
}

/// The tags a rendered file carries; empty fields are left out.
public struct SessionMetadata: Hashable, Sendable {
    /// The title; defaults to the session's name.
    public var title: String?
    public var artist: String?
    public var album: String?
    public var date: String?
    public var comment: String?
    /// The cover image's path (PNG or JPEG), for the formats that hold one; a preset's is
    /// relative to the preset's folder.
    public var cover: String?
    public init() {}
}

extension Session {
    /// The role `ref` plays in this session, and the bundled sound that can stand in for it.
    public func stockReplacement(for ref: SoundRef) -> (role: SoundRole, stock: SoundRef)? {
        if ambience.contains(where: { $0.sound == ref }) || segments.contains(where: { $0.ambience?.sound == ref }) {
            return (.ambience, SoundRef("rain"))
        }
        if segments.contains(where: { $0.voice == ref }) { return (.voice, SoundRef("voice-intro")) }
        for segment in segments {
            for kind in PhaseKind.allCases {
                if case .sound(let r)? = segment.cues[kind]??.source, r == ref { return (.bell, SoundRef("bell")) }
            }
        }
        if voice.outro == ref { return (.voice, SoundRef("voice-outro")) }
        if voice.intro == ref || voice.track == ref || voice.clips.contains(where: { $0.sound == ref }) || voice.leadIn.contains(ref)
            || guide?.lines.contains(where: { $0.sound == ref }) == true {
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
