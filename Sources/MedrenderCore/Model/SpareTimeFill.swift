/// Where the time goes that a chain of segments, each given a length, leaves over in a session
/// timed in minutes.
public enum SpareTimeFill: String, Hashable, Sendable, CaseIterable {
    /// Every segment (and its ramp) stretches in proportion, so the breathing fills the session
    /// up to the closing.
    case breathing
    /// The segments keep their lengths; the closing takes the rest (what happens when the preset
    /// does not say, with a warning once the closing grows by a cycle or more).
    case closing
    /// The last segment goes on until the closing, whatever length it was given.
    case lastSegment = "last-segment"
}
