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
