import Foundation

/// A named shape for a gain change from 0 to 1, used by fades, crossfades, ducking and ramps.
public enum FadeCurve: String, CaseIterable, Hashable, Sendable, Codable {
    case linear
    /// sin(x·π/2): equal power when paired with its mirror.
    case quarterSine = "quarter-sine"
    /// (1 − cos(x·π)) / 2, an S-curve.
    case halfCosine = "half-cosine"
    /// Rises fast, then levels off: a log-like curve.
    case logarithmic
    /// Starts slow, then rises steeply: an exponential-like curve.
    case exponential
    case easeIn = "ease-in"
    case easeOut = "ease-out"
    case easeInOut = "ease-in-out"

    /// The curve's value at `x` in 0…1 (clamped). Every curve maps 0 to 0 and 1 to 1 exactly.
    public func value(at x: Double) -> Double {
        let t = min(1, max(0, x))
        switch self {
        case .linear: return t
        case .quarterSine: return t >= 1 ? 1 : sin(t * .pi / 2)
        case .halfCosine: return t >= 1 ? 1 : (1 - cos(t * .pi)) / 2
        case .logarithmic: return log1p(9 * t) / log(10)
        case .exponential: return (pow(10, t) - 1) / 9
        case .easeIn: return t * t
        case .easeOut: return 1 - (1 - t) * (1 - t)
        case .easeInOut: return t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t)
        }
    }
}
