/// One kind of breath phase, in the order a cycle plays them.
public enum PhaseKind: String, CaseIterable, Hashable, Sendable, Codable {
    case inhale
    /// The hold after the inhale (the pause before a top-up in the physiological sigh).
    case holdIn = "hold-in"
    /// The second, short inhale of the physiological sigh.
    case topUp = "top-up"
    case exhale
    /// The hold after the exhale.
    case holdOut = "hold-out"

    /// The words a caption shows for this phase.
    public var instruction: String {
        switch self {
        case .inhale: "Breathe in"
        case .holdIn, .holdOut: "Hold"
        case .topUp: "Breathe in a little more"
        case .exhale: "Breathe out"
        }
    }
}

/// The lengths of the phases of one breath cycle.
///
/// A phase of zero length is skipped: it has no cue and takes no time.
public struct BreathPattern: Hashable, Sendable, CustomStringConvertible {
    public var inhale: SessionTime
    public var holdIn: SessionTime
    public var topUp: SessionTime
    public var exhale: SessionTime
    public var holdOut: SessionTime

    public init(
        inhale: SessionTime, holdIn: SessionTime = .zero, topUp: SessionTime = .zero,
        exhale: SessionTime, holdOut: SessionTime = .zero
    ) {
        self.inhale = inhale
        self.holdIn = holdIn
        self.topUp = topUp
        self.exhale = exhale
        self.holdOut = holdOut
    }

    /// Builds a pattern from whole-millisecond lengths, `inhale-holdIn-exhale-holdOut`.
    public init(milliseconds i: Int64, _ hi: Int64, _ e: Int64, _ ho: Int64, topUp: Int64 = 0) {
        self.init(
            inhale: .init(milliseconds: i), holdIn: .init(milliseconds: hi),
            topUp: .init(milliseconds: topUp), exhale: .init(milliseconds: e),
            holdOut: .init(milliseconds: ho))
    }

    public subscript(kind: PhaseKind) -> SessionTime {
        get {
            switch kind {
            case .inhale: inhale
            case .holdIn: holdIn
            case .topUp: topUp
            case .exhale: exhale
            case .holdOut: holdOut
            }
        }
        set {
            switch kind {
            case .inhale: inhale = newValue
            case .holdIn: holdIn = newValue
            case .topUp: topUp = newValue
            case .exhale: exhale = newValue
            case .holdOut: holdOut = newValue
            }
        }
    }

    /// The phases that take time, in playing order.
    public var phases: [(kind: PhaseKind, length: SessionTime)] {
        PhaseKind.allCases.compactMap { self[$0] > .zero ? ($0, self[$0]) : nil }
    }

    /// The length of one whole cycle.
    public var cycleLength: SessionTime {
        inhale + holdIn + topUp + exhale + holdOut
    }

    /// The notation breathing apps use: `4-7-8-0`, or `1-0.5-0.5-3-0` (with a top-up) as
    /// inhale-hold-topup-exhale-hold.
    public var description: String {
        if topUp > .zero { return "\(inhale)-\(holdIn)-\(topUp)-\(exhale)-\(holdOut)" }
        return "\(inhale)-\(holdIn)-\(exhale)-\(holdOut)"
    }
}
