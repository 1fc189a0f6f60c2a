/// What the planner needs to know of a loaded sound.
public struct SoundFacts: Hashable, Sendable {
    /// Length in frames at the output rate.
    public var frameCount: Int64
    /// Integrated loudness in LUFS; nil when the sound is too short or too quiet to measure.
    public var loudnessLUFS: Double?

    public init(frameCount: Int64, loudnessLUFS: Double? = nil) {
        self.frameCount = frameCount
        self.loudnessLUFS = loudnessLUFS
    }

    /// The gain in decibels that makes this sound play at `level` LUFS (0 when unmeasured).
    public func gainDecibels(toLevel level: Double) -> Double {
        guard let loudnessLUFS, loudnessLUFS.isFinite else { return 0 }
        return level - loudnessLUFS
    }
}
