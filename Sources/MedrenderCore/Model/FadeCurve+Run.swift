import Foundation

/// A fade's gains frame after frame, `Float(curve.value(at: numerator / length))` for numerators
/// that step by `step` (1 into a fade in, −1 into a fade out), each exactly that Float, without a
/// sine or cosine for every frame.
///
/// The quarter sine and the half cosine follow their angle by rotation (one complex multiply a
/// frame), taken afresh from `sin` and `cos` at the first frame and every `anchorFrames` after, so
/// the rotation's value stays within `tolerance` of the one `value(at:)` works out (its rounding
/// grows by a few units of 10⁻¹⁶ a frame). A value is kept only when no Float rounding boundary
/// lies within `tolerance` of it: then both round to the same Float. Otherwise (a few frames in
/// ten thousand, as many in each octave of the gain, the Float's steps halving with it), and for
/// the other curves, the frame's value is worked out by `value(at:)`.
public struct FadeRun {
    public let curve: FadeCurve
    private let length: Double
    private let step: Double
    /// Whether the curve is followed by rotation (the quarter sine and the half cosine).
    private let rotates: Bool
    /// The angle's change from one frame to the next, as its cosine and sine.
    private let turn: (cos: Double, sin: Double)
    /// The numerator the rotation stands at (nil before the first frame), and its cosine and sine.
    private var at: Double?
    private var rotation = (cos: 0.0, sin: 0.0)
    private var sinceAnchor = 0

    /// Frames between two exact evaluations of the angle.
    static let anchorFrames = 128
    /// How far the rotation's value may be from `value(at:)`'s: far over what 128 frames of
    /// rounding and the argument's own rounding add up to (under 10⁻¹³).
    static let tolerance = 1e-12

    /// A fade `lengthFrames` long whose numerator moves by `step` a frame.
    public init(_ curve: FadeCurve, over lengthFrames: Int64, step: Double) {
        self.curve = curve
        length = Double(lengthFrames)
        self.step = step
        rotates = (curve == .quarterSine || curve == .halfCosine) && lengthFrames > 0
        let perUnit = curve == .quarterSine ? Double.pi / 2 : .pi
        let angle = rotates ? step * perUnit / length : 0
        turn = (cos(angle), sin(angle))
    }

    /// The curve's value at `numerator / length`, as a Float: `Float(curve.value(at:))`.
    @inline(__always)
    public mutating func value(at numerator: Double) -> Float {
        guard rotates, numerator > 0, numerator < length else { return exact(numerator) }
        if at != numerator || sinceAnchor == Self.anchorFrames {
            let t = numerator / length
            let angle = curve == .quarterSine ? t * .pi / 2 : t * .pi
            rotation = (cos(angle), sin(angle))
            sinceAnchor = 0
        }
        let v = curve == .quarterSine ? rotation.sin : (1 - rotation.cos) / 2
        let (c, s) = rotation
        rotation = (c * turn.cos - s * turn.sin, s * turn.cos + c * turn.sin)
        sinceAnchor += 1
        at = numerator + step
        let f = Float(v)
        return Self.roundsAlike(v, f) ? f : exact(numerator)
    }

    private func exact(_ numerator: Double) -> Float { Float(curve.value(at: numerator / length)) }

    /// Whether every number within `tolerance` of `v` rounds to `f` (= `Float(v)`, at least 0):
    /// `v` lies that far inside the halfway points to `f`'s neighbours, half a step of `f` away,
    /// or a quarter below a power of two (where the steps under it are half as long).
    @inline(__always)
    static func roundsAlike(_ v: Double, _ f: Float) -> Bool {
        let off = v - Double(f), half = Double(f.ulp) / 2
        if off >= 0 { return half - off > tolerance }
        return (f.significandBitPattern == 0 ? half / 2 : half) + off > tolerance
    }
}
