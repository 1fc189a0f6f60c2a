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
            largest = pointwiseMax(largest, pointwiseMax(v, -v))
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
