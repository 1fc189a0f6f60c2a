/// The sample peak of a run of samples, the meters' and the passes' shared measure.
public enum SamplePeak {
    /// The largest magnitude of `count` samples, eight at a time: a running maximum taken one
    /// sample at a time waits on each comparison in turn. A sample that is not a number is passed
    /// over, as `max` passes it over.
    @inlinable
    public static func largestMagnitude(_ samples: UnsafePointer<Float>, count: Int) -> Float {
        var largest = SIMD8<Float>(repeating: 0)
        var i = 0
        let raw = UnsafeRawPointer(samples)
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * MemoryLayout<Float>.stride, as: SIMD8<Float>.self)
            // Compares and selects, lane by lane: `pointwiseMax` is the standard library's
            // generic maximum, a call per vector that compares one lane at a time (it was 2.6 %
            // of an OGG render's processor time). A lane that is not a number compares false
            // and is passed over, as there.
            let magnitude = v.replacing(with: -v, where: v .< 0)
            largest.replace(with: magnitude, where: magnitude .> largest)
            i += 8
        }
        var result = largest.max()
        while i < count {
            result = max(result, abs(samples[i]))
            i += 1
        }
        return result
    }
}
