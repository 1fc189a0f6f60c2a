/// What the planner needs to know of a loaded sound.
public struct SoundFacts: Hashable, Sendable {
    /// Length in frames at the output rate.
    public var frameCount: Int64
    /// Integrated loudness in LUFS; nil when the sound is too short or too quiet to measure.
    public var loudnessLUFS: Double?
    /// Whether the recording already loops at its own length (its end runs on into its start).
    public var loopsNaturally: Bool
    /// Its loudest 400 ms (momentary loudness) in LUFS; nil when not measured.
    public var loudestLUFS: Double?

    public init(frameCount: Int64, loudnessLUFS: Double? = nil, loopsNaturally: Bool = false, loudestLUFS: Double? = nil) {
        self.frameCount = frameCount
        self.loudnessLUFS = loudnessLUFS
        self.loopsNaturally = loopsNaturally
        self.loudestLUFS = loudestLUFS
    }

    /// The gain in decibels that makes this sound play at `level` LUFS (0 when unmeasured).
    public func gainDecibels(toLevel level: Double) -> Double {
        guard let loudnessLUFS, loudnessLUFS.isFinite else { return 0 }
        return level - loudnessLUFS
    }
}
