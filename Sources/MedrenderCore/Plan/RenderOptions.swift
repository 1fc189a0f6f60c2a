/// How to render: the output's rate and channels, the length, and which layers to mix.
public struct RenderOptions: Hashable, Sendable {
    /// Output sample rate in hertz, 8000…192000, default 48000.
    public var rate: Int
    /// Output channels, 1 or 2, default 2.
    public var channels: Int
    public var length: SessionLength
    public var layers: Set<Layer>

    public init(rate: Int = 48000, channels: Int = 2, length: SessionLength, layers: Set<Layer> = Set(Layer.allCases)) {
        self.rate = rate
        self.channels = channels
        self.length = length
        self.layers = layers
    }

    public static let rateRange = 8000...192_000
}

/// The limits of what a session may ask for, in one place: the command line, the service, a
/// build and the preset decoder check against these.
public enum SessionLimits {
    /// The most minutes a session lasts: 24 hours (`RenderPlan.longestSession` is this).
    public static let mostMinutes = 1440.0
    /// A length in whole breath cycles.
    public static let cycles = 1...100_000
    /// A settle, a closing, or a point or pause placed in seconds.
    public static let seconds = 0.0...3600
    /// The integrated loudness a session is mastered to, in LUFS.
    public static let loudness = -70.0...(-5)
    /// The true-peak ceiling, in dBTP.
    public static let truePeak = -20.0...0
    /// The pace a script is spoken at, in words a minute.
    public static let pace = 50...250
}
