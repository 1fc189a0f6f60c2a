/// What a generated bed (`generator:` in a bed) plays: a colour of noise, or an ambience made as
/// it plays (rain, ocean surf, a stream, wind), seeded and never repeating.
public enum BedGenerator: String, CaseIterable, Hashable, Sendable {
    case white, pink, brown, grey
    case rain, ocean, stream, wind

    /// The colour of noise this generator plays, or nil for an ambience.
    public var noiseColour: NoiseColour? { NoiseColour(rawValue: rawValue) }

    /// The ambience this generator plays, or nil for a colour of noise.
    public var ambience: AmbienceKind? { AmbienceKind(rawValue: rawValue) }

    /// The bed's name where a sound's name is shown: "pink noise", "generated rain".
    public var displayName: String { noiseColour != nil ? "\(rawValue) noise" : "generated \(rawValue)" }

    /// The integrated loudness of the generator at unit gain in stereo at `rate`, in LUFS: what
    /// the bed's gain for a level is measured from.
    public func loudnessLUFS(atRate rate: Int) -> Double { noiseColour?.loudnessLUFS ?? ambience!.loudnessLUFS(atRate: rate) }

    /// A source of the generator's frames at `rate`, in `channels`, from `seed`.
    public func makeSource(rate: Int, channels: Int, seed: UInt64) -> any GeneratedSource {
        if let colour = noiseColour { return NoiseSource(colour: colour, rate: rate, channels: channels, seed: seed) }
        return AmbienceSource(kind: ambience!, rate: rate, channels: channels, seed: seed)
    }
}

/// A bed generated as it plays: its frames are a function of the frame, so a source started at
/// any frame gives what one started at 0 gives from there on.
public protocol GeneratedSource: AnyObject {
    /// Writes frames `start ..< start + frameCount` into `out`, interleaved.
    func render(into out: UnsafeMutablePointer<Float>, from start: Int64, frameCount: Int)
}
