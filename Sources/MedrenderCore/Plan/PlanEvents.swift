/// A named point in the session: settle, breathing, each chained segment, closing. What a section
/// is goes by its `kind`, never by its name: a segment may be called anything, "Closing" too.
public struct SessionSection: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case settle, breathing, segment, closing }
    public var kind: Kind
    /// Settle, Breathing and Closing in English (`Words.section` says them in the session's
    /// language); a segment's own name as written.
    public var name: String
    public var time: SessionTime
    public var frame: Int64

    public init(_ kind: Kind, name: String, time: SessionTime, frame: Int64) {
        self.kind = kind
        self.name = name
        self.time = time
        self.frame = frame
    }
}

/// A clip placed on the clock: a voice clip, a bell, or a cue.
public struct ClipEvent: Hashable, Sendable {
    public enum Sound: Hashable, Sendable {
        case file(SoundRef)
        case cue(PhaseKind)
        /// A soft synthesized tick for the countdown.
        case countdown
        /// A soft synthesized tick for the metronome.
        case metronome
    }
    public var layer: Layer
    public var sound: Sound
    public var startFrame: Int64
    /// The most frames it may play; a longer sound is cut here, ramped to zero over `releaseFrames`.
    public var maximumFrames: Int64
    /// Linear gain.
    public var gain: Float
    /// Stereo position, −1…1.
    public var pan: Float
    /// Length of the raised-cosine release applied when the sound is cut at `maximumFrames`.
    public var releaseFrames: Int64
    /// How a cue that starts before a line of the guided script, and rings into it, dips from the
    /// line on; nil for any other clip, which plays at `gain` throughout.
    public var dip: CueDip?
}

/// An ambience bed placed on the clock, with its own gain envelope.
public struct BedEvent: Hashable, Sendable {
    public var sound: SoundRef
    public var seamFrames: Int64
    /// Linear gain at full level.
    public var gain: Float
    public var startFrame: Int64
    public var endFrame: Int64
    /// Frames of fade in from `startFrame`, and of fade out ending at `endFrame`.
    public var fadeInFrames: Int64
    public var fadeOutFrames: Int64
    public var fadeCurve: FadeCurve
    /// A seeded value; the loop starts at `loopOffsetSeed % loopLength`.
    public var loopOffsetSeed: UInt64
    /// Noise or an ambience generated as it plays, instead of the sound's loop.
    public var generator: BedGenerator? = nil

    /// Its fades' gains frame after frame: the fade in's at (frames from the start + ½) / its
    /// length, the fade out's at (frames to the end − ½) / its length.
    var fadeRuns: (in: FadeRun, out: FadeRun) {
        (FadeRun(fadeCurve, over: fadeInFrames, step: 1), FadeRun(fadeCurve, over: fadeOutFrames, step: -1))
    }
}

/// What sounds at a phase of one kind, at the output rate.
public struct CuePlan: Hashable, Sendable {
    public var kind: PhaseKind
    public var sound: CueSound
    public var lengthFrames: Int64
    /// The segment whose own cue this is; nil for the session's.
    public var segment: Int?
}

/// The master chain's settings in frames.
public struct MasterPlan: Hashable, Sendable {
    public var fadeInFrames: Int64
    public var fadeOutFrames: Int64
    public var fadeCurve: FadeCurve
    public var loudnessLUFS: Double
    public var truePeakDBTP: Double
}
