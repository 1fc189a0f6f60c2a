/// The sine of a phase given in cycles, sin(2π·x), to within a few units in the last place of a
/// `Double`: what the beat generator and the slides' phase integrals call for every frame, at a
/// fraction of the library `sin`'s cost, for any phase under 2⁶³ cycles. The phase is reduced in
/// cycles, where it is exact (no multiple of π to subtract), to a quarter cycle around 0, and the
/// sine's Taylor series to x¹⁹ is summed there: its first term left out is under 3·10⁻¹⁶ at a
/// quarter cycle.
public enum Sine {
    @inline(__always)
    public static func cycles(_ x: Double) -> Double {
        // x less its whole cycles, by truncation (the library's rounding is a call): exact, in −1…1.
        var r = x - Double(Int64(x))
        if r > 0.5 { r -= 1 } else if r < -0.5 { r += 1 }
        if r > 0.25 { r = 0.5 - r } else if r < -0.25 { r = -0.5 - r }
        let t = r * (2 * Double.pi)
        let t2 = t * t
        var p = -1.0 / 121_645_100_408_832_000
        p = p * t2 + 1.0 / 355_687_428_096_000
        p = p * t2 - 1.0 / 1_307_674_368_000
        p = p * t2 + 1.0 / 6_227_020_800
        p = p * t2 - 1.0 / 39_916_800
        p = p * t2 + 1.0 / 362_880
        p = p * t2 - 1.0 / 5_040
        p = p * t2 + 1.0 / 120
        p = p * t2 - 1.0 / 6
        return t + t * t2 * p
    }
}
