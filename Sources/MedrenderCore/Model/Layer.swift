/// The layers a session is mixed from; `--layers` picks among them.
public enum Layer: String, CaseIterable, Hashable, Sendable, Codable {
    case cues, voice, ambience, bells, beats
}
