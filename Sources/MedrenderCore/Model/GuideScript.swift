/// A guided script: the voice that speaks it and its lines, in speaking order.
///
/// The script is a pure value: the text and the timing rules as the author wrote them. Speech is
/// synthesized before planning; each spoken line then names the sound that holds its audio.
public struct GuideScript: Hashable, Sendable {
    /// The voice the `say:` lines are spoken with; nil takes the language's default voice.
    public var voice: GuideVoice?
    /// The voices tried after `voice`, in order, when its engine or voice is not installed
    /// (`voice: [piper:en_US-joe-medium, festival]`): the first installed one speaks.
    public var fallbacks: [GuideVoice] = []
    /// Where the author wrote `voice:`, for messages about it; nil when it came from elsewhere.
    public var voiceLocation: ScriptLocation?
    public var lines: [GuideLine]
    /// A teacher's recording of the whole script in one take (`guide.recording`): its phrases,
    /// one a `say:` line in order, are played instead of a synthesized voice, and the lines' text
    /// is their captions. Nil: the lines are spoken by `voice`.
    public var recording: GuideRecording?
    /// The pace its `say:` lines are spoken at, in words a minute (`guide.pace`); nil is
    /// `defaultPace`. A line may give its own.
    public var pace: Int?

    /// A script's pace when it gives none: 120 words a minute, a meditation teacher's (a
    /// newsreader's is about 180).
    public static let defaultPace = 120

    public init(voice: GuideVoice? = nil, lines: [GuideLine]) {
        self.voice = voice
        self.lines = lines
    }

    /// Every voice the script may be spoken with, first choice first.
    public var choices: [GuideVoice] { (voice.map { [$0] } ?? []) + fallbacks }
}

/// A teacher's take: the recording, how its phrases are found, and where the author wrote it.
public struct GuideRecording: Hashable, Sendable {
    public var sound: SoundRef
    public var settings = TakePhrases.Settings()
    /// Cut times (from the take's start) between its lines, instead of the phrases found: one
    /// fewer than the `say:` lines.
    public var split: [SessionTime]?
    public var location: ScriptLocation?

    public init(sound: SoundRef, location: ScriptLocation? = nil) {
        self.sound = sound
        self.location = location
    }
}

/// A speech engine and one of its voices.
public struct GuideVoice: Hashable, Sendable, Codable {
    public enum Engine: String, Hashable, Sendable, CaseIterable, Codable {
        case festival
        case espeakNG = "espeak-ng"
        case flite
        /// Piper, a neural voice run as its own program (`piper-tts`), with a voice model by name
        /// (`en_US-joe-medium`, found in the voice folders) or by path (`voices/teacher.onnx`).
        case piper
        /// A program the user has: it is run with the text and an output path as its arguments.
        case command
    }
    public var engine: Engine
    /// The voice's name for the engine (`cmu_us_slt_arctic_hts`, `de`, `slt`, `en_US-joe-medium`
    /// or a Piper model's path), or for `command` the program to run; nil takes the engine's default for the language.
    public var name: String?

    public init(engine: Engine, name: String? = nil) {
        self.engine = engine
        self.name = name
    }

    /// Whether a Piper voice's name is a model's path (`voices/teacher.onnx`) rather than a name
    /// looked for in the voice folders (`en_US-joe-medium`).
    public static func isModelPath(_ name: String) -> Bool { name.contains("/") || name.hasSuffix(".onnx") }
}

/// The three parts of a session a line can belong to.
public enum SessionPart: String, Hashable, Sendable, CaseIterable {
    case settle, breathing, closing
}

/// Where a line sits in the preset (`file:line:column`), for messages.
public struct ScriptLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
    public var description: String { "\(file):\(line):\(column)" }
}

/// One line of a script: spoken text or a recording, and when it starts.
public struct GuideLine: Hashable, Sendable {
    public enum Content: Hashable, Sendable {
        /// Text to be spoken by the script's voice.
        case say(String)
        /// A recording, with what it says when the author gave it (for the captions).
        case clip(SoundRef, text: String?)
    }

    /// How a line's start is found.
    public enum Start: Hashable, Sendable {
        /// After the previous line and its rest end (or the start of its part), by a fixed pause
        /// before the line.
        case after(SessionTime)
        /// After the previous line and its rest end, by an elastic pause before the line: at
        /// least `minimum`, plus the run's spare time in proportion to `weight` (> 0).
        case elastic(minimum: SessionTime, weight: Double)
        /// At a set time from the start of the file.
        case at(SessionTime)
        /// On the first frame of a phase of a cycle (1-based).
        case on(cycle: Int, phase: PhaseKind)
    }

    /// The silence after a line, before the next line's pause (or the end of its run).
    public enum Rest: Hashable, Sendable {
        /// A fixed rest, 0…3600 s; 0 (the default) lets what follows come straight after the line.
        case fixed(SessionTime)
        /// An elastic rest: at least `minimum`, plus the run's spare time in proportion to
        /// `weight` (> 0), shared with the run's elastic pauses.
        case elastic(minimum: SessionTime, weight: Double)
    }

    public var content: Content
    public var start: Start
    /// The silence after the line: kept before the next line, a placed line (`at`, `on`) or the
    /// end of its part alike. Default none.
    public var rest: Rest = .fixed(.zero)
    /// The part the line belongs to: with it, the line flows from that part's start (after its
    /// pause). Nil: the part of the line before it.
    public var during: SessionPart?
    /// Where the author wrote it.
    public var location: ScriptLocation?
    /// The sound that holds a spoken line's audio, once synthesized (a clip's own sound otherwise).
    public var speech: SoundRef?
    /// The pace a `say:` line is spoken at, in words a minute, instead of its script's.
    public var pace: Int?

    public init(content: Content, start: Start = .after(GuideLine.defaultPause), during: SessionPart? = nil,
                location: ScriptLocation? = nil) {
        self.content = content
        self.start = start
        self.during = during
        self.location = location
    }

    /// The pause before a line that gives none: 1 s.
    public static let defaultPause = SessionTime.seconds(1)

    /// The sound the line plays: a clip's, or a spoken line's synthesized audio (nil before synthesis).
    public var sound: SoundRef? {
        switch content {
        case .say: speech
        case .clip(let ref, _): ref
        }
    }

    /// What the line says, for the captions: the spoken text (without its `[pause N]` marks), or
    /// a clip's `text:`.
    public var text: String? {
        switch content {
        case .say(let text): SpokenPhrases.caption(of: text)
        case .clip(_, let text): text
        }
    }

    /// Whether the line is placed by a time or a cue of its own rather than after the one before.
    public var isAnchored: Bool {
        switch start {
        case .at, .on: true
        case .after, .elastic: during != nil
        }
    }
}

/// A spoken line or a clip with text, placed on the clock: what the captions show.
public struct PlacedLine: Hashable, Sendable {
    /// The line's index in the script (0-based).
    public var index: Int
    public var text: String?
    public var sound: SoundRef?
    public var startFrame: Int64
    /// The frame after its last.
    public var endFrame: Int64
}

/// What the plan knows of a session's script and its words.
public struct GuidePlan: Hashable, Sendable {
    /// Every line placed, in speaking order.
    public var lines: [PlacedLine]
    /// The language of the words a listener meets.
    public var language: Language
    /// What the spoken prompts and lead-in say, by their sound (`VoiceSettings.spokenTexts`).
    public var spoken: [SoundRef: String]
    /// The voice that spoke, as `ENGINE:VOICE` (`VoiceSettings.speaker`); nil when nothing is spoken.
    public var speaker: String?

    public init(lines: [PlacedLine] = [], language: Language = .english, spoken: [SoundRef: String] = [:], speaker: String? = nil) {
        self.lines = lines
        self.language = language
        self.spoken = spoken
        self.speaker = speaker
    }
}
