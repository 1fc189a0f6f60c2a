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
