import Foundation

/// Raised-cosine ramps that start and end exactly where a click-free edge needs them.
public enum Ramp {
    /// The attack gain of frame `index` (0-based) of an attack `length` frames long.
    ///
    /// Never 0 (so a cue's first sample is not 0), and 1 at `index == length`.
    @inline(__always)
    public static func attack(_ index: Int, length: Int) -> Float {
        guard index < length else { return 1 }
        return Float(0.5 - 0.5 * cos(Double.pi * Double(index + 1) / Double(length + 1)))
    }

    /// The release gain of frame `index` (0-based) of a release `length` frames long.
    ///
    /// Below 1 from the first frame and exactly 0 on the last (`index == length - 1`).
    @inline(__always)
    public static func release(_ index: Int, length: Int) -> Float {
        guard length > 0 else { return 1 }
        if index >= length - 1 { return 0 }
        return Float(0.5 + 0.5 * cos(Double.pi * Double(index + 1) / Double(length)))
    }
}
