import Foundation

extension FadeCurve {
    /// The area under the curve from 0 to `x` (clamped to 0…1), in closed form: what a frequency
    /// sliding along the curve adds to a phase, so a phase is known at any frame without summing
    /// the frames before it. `integral(at: 1)` is the curve's mean over the slide.
    public func integral(at x: Double) -> Double {
        let t = min(1, max(0, x))
        switch self {
        case .linear: return t * t / 2
        case .quarterSine: return 2 / .pi * (1 - cos(t * .pi / 2))
        case .halfCosine: return t / 2 - Sine.cycles(t / 2) / (2 * .pi)
        case .logarithmic: return ((1 + 9 * t) * log1p(9 * t) - 9 * t) / (9 * log(10))
        case .exponential: return (pow(10, t) - 1) / (9 * log(10)) - t / 9
        case .easeIn: return t * t * t / 3
        case .easeOut: return t * t - t * t * t / 3
        case .easeInOut:
            if t < 0.5 { return 2 * t * t * t / 3 }
            let u = 1 - t
            return 1.0 / 12 + (t - 0.5) + 2.0 / 3 * (u * u * u - 0.125)
        }
    }
}
