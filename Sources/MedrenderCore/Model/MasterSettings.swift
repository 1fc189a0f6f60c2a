/// The master chain's settings.
public struct MasterSettings: Hashable, Sendable {
    /// Integrated loudness target in LUFS, −70…−5, default −18.
    public var loudnessLUFS: Double
    /// True-peak ceiling in dBTP, −20…0, default −1.
    public var truePeakDBTP: Double
    /// Fade at the very start of the file, default 0 (the ambience has its own fade).
    public var fadeIn: SessionTime
    /// Fade at the very end of the file, default 3 s.
    public var fadeOut: SessionTime
    public var fadeCurve: FadeCurve

    public init(
        loudnessLUFS: Double = -18, truePeakDBTP: Double = -1, fadeIn: SessionTime = .zero,
        fadeOut: SessionTime = .seconds(3), fadeCurve: FadeCurve = .quarterSine
    ) {
        self.loudnessLUFS = loudnessLUFS
        self.truePeakDBTP = truePeakDBTP
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
        self.fadeCurve = fadeCurve
    }
}
