/// Quantizes to 16 bits with TPDF dither: triangular noise of ±1 LSB from a seeded generator, so
/// the same seed gives the same bytes.
public struct TPDFDither: Sendable {
    private var generator: SeededGenerator

    public init(seed: UInt64) {
        generator = SeededGenerator(seed: seed ^ 0xD1_7E12)
    }

    /// Quantizes `count` samples from `input` to 16-bit integers in `output`.
    public mutating func quantize(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Int16>, count: Int) {
        for i in 0..<count {
            let noise = generator.nextUnit() - generator.nextUnit()
            let scaled = (input[i] * 32767 + noise).rounded()
            output[i] = Int16(max(-32768, min(32767, scaled.isFinite ? scaled : 0)))
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
