/// Bells at the start and the end of the session.
public struct BellSettings: Hashable, Sendable {
    /// Timed bells closer than this to the one before cannot be heard apart (a strike's onset):
    /// the later is merged into the earlier, with a warning.
    public static let leastGap = SessionTime(milliseconds: 100)
    public var start: SoundRef?
    public var end: SoundRef?
    /// Gain in decibels, −60…12, default −6.
    public var gainDecibels: Double
    /// The sound of interval bells and bells at listed times (default: the start bell).
    public var interval: SoundRef?
    /// A bell every this long during the breathing section, counted from the first breath (the
    /// settle not included), when set: `every: 5` rings 5, 10, 15 … minutes after the first breath.
    public var every: SessionTime?
    /// Bells at these times from the start of the file (the settle included); a time past the
    /// end of the file is left out.
    public var at: [SessionTime] = []
    /// A soft tick on each of the last N seconds of the breathing section, 0…60, default 0 (off).
    public var countdownSeconds: Int = 0
    /// A soft tick on each of the last N seconds before the first breath ("3, 2, 1"), 0…10,
    /// default 0 (off).
    public var leadInSeconds: Int = 0

    public init(start: SoundRef? = nil, end: SoundRef? = nil, gainDecibels: Double = -6) {
        self.start = start
        self.end = end
        self.gainDecibels = gainDecibels
    }
}
