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
