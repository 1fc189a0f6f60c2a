/// One ambience bed: a loop from the sound library.
public struct AmbienceBed: Hashable, Sendable {
    public var sound: SoundRef
    /// The loudness the bed plays at, in LUFS, −70…−10, default −28: set from the bed's measured
    /// loudness, not its peak, so rain and ocean at the same level sound equally loud.
    public var levelLUFS: Double
    /// Length of the equal-power crossfade baked into the loop's seam, 0…30 s. Default (nil):
    /// none for a sound that already loops at its own length (`loop: natural` in
    /// `Sounds/CREDITS.yaml`), so its rhythm is kept; 3 s for any other.
    public var seam: SessionTime?
    /// Where this bed takes over from the one before it; nil shares the session equally.
    public var from: BedStart?
    /// Noise or an ambience generated at render time instead of a sound (`generator:`); `sound`
    /// then only names it.
    public var generator: BedGenerator?

    public init(sound: SoundRef, levelLUFS: Double = -28, seam: SessionTime? = nil, from: BedStart? = nil) {
        self.from = from
        self.sound = sound
        self.levelLUFS = levelLUFS
        self.seam = seam
    }
}

extension AmbienceBed {
    /// The seam of a sound that does not loop by itself, when the preset gives none.
    public static let defaultSeam = SessionTime.seconds(3)
    /// The shortest crossfade between two beds: a join given as 0 still crossfades this long, so
    /// no allowed value clicks.
    public static let shortestCrossfade = SessionTime(milliseconds: 50)
}

/// Where a bed takes over from the one before it.
public enum BedStart: Hashable, Sendable {
    /// A fraction of the whole session, 0…1.
    case fraction(Double)
    /// A time from the start of the file.
    case time(SessionTime)
}
