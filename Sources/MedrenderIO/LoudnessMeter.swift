import CEBUR128
import MedrenderCore

/// How one channel counts in a loudness measurement (ITU BS.1770 weights).
public enum LoudnessChannelRole: Sendable, Hashable {
    /// Left out (the LFE).
    case unused
    /// Weighed 1 (0 dB).
    case left, right, center
    /// Weighed 1.41 (+1.5 dB).
    case leftSurround, rightSurround

    /// The usual speakers for `channels` channels when a file does not say, as ffmpeg assumes:
    /// mono, stereo, 3.0, quad, 5.0, 5.1 (L R C LFE Ls Rs), 6.1, 7.1 (L R C LFE Ls Rs Lss Rss).
    public static func defaultLayout(channels: Int) -> [LoudnessChannelRole] {
        let layouts: [Int: [LoudnessChannelRole]] = [
            1: [.center], 2: [.left, .right], 3: [.left, .right, .center],
            4: [.left, .right, .leftSurround, .rightSurround], 5: [.left, .right, .center, .leftSurround, .rightSurround],
            6: [.left, .right, .center, .unused, .leftSurround, .rightSurround],
            7: [.left, .right, .center, .unused, .leftSurround, .rightSurround, .leftSurround],
            8: [.left, .right, .center, .unused, .leftSurround, .rightSurround, .leftSurround, .rightSurround],
        ]
        return layouts[channels] ?? (0..<channels).map { $0 % 2 == 0 ? .left : .right }
    }

    var ebur128: Int32 {
        switch self {
        case .unused: Int32(EBUR128_UNUSED.rawValue)
        case .left: Int32(EBUR128_LEFT.rawValue)
        case .right: Int32(EBUR128_RIGHT.rawValue)
        case .center: Int32(EBUR128_CENTER.rawValue)
        case .leftSurround: Int32(EBUR128_LEFT_SURROUND.rawValue)
        case .rightSurround: Int32(EBUR128_RIGHT_SURROUND.rawValue)
        }
    }
}

/// Measures loudness as EBU R 128 does, with libebur128.
///
/// Not `Sendable`: one meter belongs to one thread.
public final class LoudnessMeter {
    private var handle: UnsafeMutablePointer<ebur128_state>?
    public let channels: Int

    /// - Parameters:
    ///   - withTruePeak: also measure true peak (costly: it oversamples everything).
    ///   - withRange: also measure loudness range.
    ///   - roles: how each channel counts, for more than two channels (a 5.1 file: L R C LFE Ls
    ///     Rs); mono is always dual mono, stereo left and right.
    /// The corresponding C function is `ebur128_init`.
    public init(channels: Int, rate: Int, withTruePeak: Bool = false, withRange: Bool = false,
                roles: [LoudnessChannelRole]? = nil) throws(IOError) {
        // Histogram mode keeps the meter's memory the same for any length (it would otherwise
        // keep every 100-ms block), at 0.1 LU resolution.
        var mode = Int32(EBUR128_MODE_I.rawValue) | Int32(EBUR128_MODE_SAMPLE_PEAK.rawValue)
            | Int32(EBUR128_MODE_HISTOGRAM.rawValue)
        if withTruePeak { mode |= Int32(EBUR128_MODE_TRUE_PEAK.rawValue) }
        if withRange { mode |= Int32(EBUR128_MODE_LRA.rawValue) }
        guard let handle = ebur128_init(UInt32(channels), UInt(rate), mode) else {
            throw IOError(.library, "cannot start the loudness meter for \(channels) channels at \(rate) Hz")
        }
        self.handle = handle
        self.channels = channels
        if channels == 1 {
            // A mono mix plays on both speakers: weigh it as dual mono.
            try check(ebur128_set_channel(handle, 0, Int32(EBUR128_DUAL_MONO.rawValue)), "set the channel map")
        } else if channels > 2 {
            let roles = roles ?? LoudnessChannelRole.defaultLayout(channels: channels)
            precondition(roles.count == channels, "one role per channel")
            for (index, role) in roles.enumerated() {
                try check(ebur128_set_channel(handle, UInt32(index), role.ebur128), "set the channel map")
            }
        }
    }

    deinit { ebur128_destroy(&handle) }

    private func check(_ code: Int32, _ what: String) throws(IOError) {
        if code != Int32(EBUR128_SUCCESS.rawValue) {
            throw IOError(.library, "the loudness meter could not \(what)", cause: "libebur128 error \(code)")
        }
    }

    /// Adds interleaved frames. The corresponding C function is `ebur128_add_frames_float`.
    public func add(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        try check(ebur128_add_frames_float(handle, frames, frameCount), "take more audio")
    }

    /// Integrated loudness in LUFS; −∞ for silence. The corresponding C function is
    /// `ebur128_loudness_global`.
    public func integratedLoudness() throws(IOError) -> Double {
        var value = 0.0
        try check(ebur128_loudness_global(handle, &value), "measure integrated loudness")
        return value
    }

    /// The integrated loudness of several meters' audio taken together, in LUFS (−∞ for silence).
    /// The corresponding C function is `ebur128_loudness_global_multiple`.
    public static func integratedLoudness(of meters: [LoudnessMeter]) throws(IOError) -> Double {
        var handles = meters.map { $0.handle }
        var value = 0.0
        let code = handles.withUnsafeMutableBufferPointer { ebur128_loudness_global_multiple($0.baseAddress, $0.count, &value) }
        if code != Int32(EBUR128_SUCCESS.rawValue) {
            throw IOError(.library, "the loudness meter could not combine its parts", cause: "libebur128 error \(code)")
        }
        return value
    }

    /// Loudness range in LU. The corresponding C function is `ebur128_loudness_range`.
    public func loudnessRange() throws(IOError) -> Double {
        var value = 0.0
        try check(ebur128_loudness_range(handle, &value), "measure loudness range")
        return value
    }

    /// The highest sample peak over all channels, linear. The corresponding C function is
    /// `ebur128_sample_peak`.
    public func samplePeak() throws(IOError) -> Double {
        try highestOfChannels("read the sample peak") { ebur128_sample_peak(handle, $0, &$1) }
    }

    /// The highest true peak over all channels, linear (needs `withTruePeak`). The corresponding C
    /// function is `ebur128_true_peak`.
    public func truePeak() throws(IOError) -> Double {
        try highestOfChannels("read the true peak") { ebur128_true_peak(handle, $0, &$1) }
    }

    /// The highest over all channels of what `read` gives for one (its C function's return code,
    /// checked, and the value); `what` says what was read in an error.
    private func highestOfChannels(_ what: String, _ read: (UInt32, inout Double) -> Int32) throws(IOError) -> Double {
        var peak = 0.0
        for c in 0..<channels {
            var value = 0.0
            try check(read(UInt32(c), &value), what)
            peak = max(peak, value)
        }
        return peak
    }
}
