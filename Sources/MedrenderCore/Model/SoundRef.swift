/// A sound named by a preset: a name from the sound library (`rain`) or a path to a file.
public struct SoundRef: Hashable, Sendable, CustomStringConvertible {
    /// What the author wrote.
    public var name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}

/// What a sound is for, so a missing one can be replaced by a bundled sound of the same role.
public enum SoundRole: String, Hashable, Sendable {
    case ambience, voice, bell
}
