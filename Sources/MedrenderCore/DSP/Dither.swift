/// Quantizes to 16 bits with TPDF dither: triangular noise of ±1 LSB from a seeded generator, so
/// the same seed gives the same bytes.
public struct TPDFDither: Sendable {
    private var generator: SeededGenerator

    public init(seed: UInt64) {
        generator = SeededGenerator(seed: seed ^ 0xD1_7E12)
    }

    /// Quantizes `count` samples from `input` to 16-bit integers in `output`: one draw of the
    /// generator a sample, its two 24-bit halves the two uniform values whose difference is the
    /// noise; clamped, then rounded (a tie to even) by adding 1.5 × 2^23, which leaves the integer
    /// in the float's low bits, so there is no call into libm and the loop has no branch.
    public mutating func quantize(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Int16>, count: Int) {
        for i in 0..<count {
            let h = generator.next()
            let noise = (Float(h >> 40) - Float(h & 0xFF_FFFF)) * (1.0 / 16_777_216)
            let scaled = input[i] * 32767 + noise
            let clamped = scaled.isNaN ? 0 : Swift.max(-32768, Swift.min(32767, scaled))
            output[i] = Int16(truncatingIfNeeded: Int32(bitPattern: (clamped + 12_582_912).bitPattern) &- 0x4B40_0000)
        }
    }
}

/// Quantizes to 24 bits (left-aligned in 32-bit integers, as libsndfile's int API expects).
public enum Quantizer24 {
    public static func quantize(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Int32>, count: Int) {
        for i in 0..<count {
            let scaled = (input[i] * 8_388_607).rounded()
            let clamped = max(-8_388_608, min(8_388_607, scaled.isFinite ? scaled : 0))
            output[i] = Int32(clamped) << 8
        }
    }
}
