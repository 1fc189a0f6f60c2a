import Synchronization

/// What the mixers of one render's assets have mixed, in frames: of the whole mix (pass 1's parts,
/// a limited pass, a write), and of layers mixed apart from it (a stem, the voice measured on its
/// own). Divided by the session's frames, the first is how many times the render mixed the
/// session, what the README promises and a test reads.
public final class MixTally: Sendable {
    private let whole = Atomic<Int64>(0)
    private let apart = Atomic<Int64>(0)
    private let names = Mutex<[String]>([])

    public init() {}

    /// Frames of the whole mix mixed so far.
    public var mixFrames: Int64 { whole.load(ordering: .relaxed) }
    /// Frames of layers mixed apart so far.
    public var layerFrames: Int64 { apart.load(ordering: .relaxed) }

    /// The passes that mixed the whole session, in order, as they named themselves (`record`).
    public var passes: [String] { names.withLock { $0 } }

    /// Notes that a pass named `name` mixed the whole session.
    public func record(pass name: String) { names.withLock { $0.append(name) } }

    func add(_ frames: Int, layersApart: Bool) {
        if layersApart {
            apart.wrappingAdd(Int64(frames), ordering: .relaxed)
        } else {
            whole.wrappingAdd(Int64(frames), ordering: .relaxed)
        }
    }
}
