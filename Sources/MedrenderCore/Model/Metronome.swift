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
