/// Bells at the start and the end of the session.
public struct BellSettings: Hashable, Sendable {
    /// Timed bells closer than this to the one before cannot be heard apart (a strike's onset):
    /// the later is merged into the earlier, with a warning.
    public static let leastGap = SessionTime(milliseconds: 100)
    public var start: SoundRef?
    public var end: SoundRef?
    /// How the start and the end bell are struck: once, or several times a gap apart.
    public var startStrikes = BellStrikes()
    public var endStrikes = BellStrikes()
    /// Gain in decibels, −60…12, default −6; in a session with a voice, at most what brings the
    /// bell's loudest 400 ms `strikeUnderVoiceLU` under the voice's level.
    public var gainDecibels: Double
    /// How far under the voice's level (`voice.level`) a bell's loudest 400 ms stays in a session
    /// with a voice: 3 LU, so that a strike is never louder than the words (whose own loudest
    /// 400 ms come 4–5 LU over their level) nor more than 6 LU over the whole file, whose voice
    /// speaks only part of the time (the stock presets' files sit 2–5 LU under their voice).
    public static let strikeUnderVoiceLU = 3.0
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

/// A bell struck once or several times, each strike ringing out fully over the ones after it.
public struct BellStrikes: Hashable, Sendable {
    /// Strikes, 1…5, default 1.
    public var count: Int
    /// From one strike's onset to the next, 0.3…10 s, default 1.2 s.
    public var gap: SessionTime
    public static let counts = 1...5
    public static let gaps = SessionTime(milliseconds: 300)...SessionTime.seconds(10)

    public init(count: Int = 1, gap: SessionTime = SessionTime(milliseconds: 1200)) {
        self.count = count
        self.gap = gap
    }

    /// The onsets of the strikes, from the first.
    public var offsets: [SessionTime] { (0..<count).map { SessionTime(milliseconds: gap.milliseconds * Int64($0)) } }
}
