/// Decoded audio held in memory: interleaved Float32 frames at the output rate.
///
/// Assets are small (clips, loops, cue tones); a session is never held in memory.
public struct AudioAsset: Sendable {
    /// 1 (mono) or 2 (stereo).
    public let channels: Int
    /// Interleaved samples, `frameCount × channels` of them.
    public let samples: [Float]

    public var frameCount: Int { samples.count / channels }

    public init(channels: Int, samples: [Float]) {
        precondition(channels == 1 || channels == 2, "assets are mono or stereo")
        precondition(samples.count % channels == 0, "samples must be whole frames")
        self.channels = channels
        self.samples = samples
    }

    /// The largest absolute sample value.
    public var peak: Float {
        samples.reduce(0) { max($0, abs($1)) }
    }
}

/// A sound as the mixer plays it, held as 16-bit samples and a scale: half the memory of 32-bit
/// floats. A bed's loop (30 to 60 s, the longest sound a render holds), a clip (a voice, a bell)
/// and a cue's tone are held so. A sample's value is `Float(samples[i]) * scale`. A clip's or a
/// tone's scale puts its peak at full scale, so what the 16 bits add is 96 dB under the sound's own
/// peak, and further under its level in the mix; a bed, decoded straight into 16 bits before its
/// peak is known, is held at the fixed step `Int16.heldStep` (95 dB under full scale).
public struct QuantizedAsset: Sendable {
    /// 1 (mono) or 2 (stereo).
    public let channels: Int
    /// Interleaved samples, `frameCount × channels` of them.
    public let samples: [Int16]
    /// The value of one step.
    public let scale: Float

    public var frameCount: Int { samples.count / channels }

    /// Rounds `asset`'s samples to 16 bits under a scale that fits its peak.
    public init(quantizing asset: AudioAsset) {
        self.init(channels: asset.channels, quantizing: asset.samples)
    }

    /// Rounds interleaved `samples` to 16 bits under a scale that fits their peak.
    public init(channels: Int, quantizing samples: [Float]) {
        let scale = Self.scale(fitting: samples, channels: channels)
        let steps = 1 / scale
        var out = samples.map { Self.round($0, steps) }
        Self.keep(samples.withUnsafeBufferPointer(Self.onset), in: &out)
        self.init(channels: channels, samples: out, scale: scale)
    }

    private init(channels: Int, samples: [Int16], scale: Float) {
        self.channels = channels
        self.samples = samples
        self.scale = scale
    }

    /// The value of one step that puts the peak of `samples` at full scale (1 for silence).
    private static func scale(fitting samples: [Float], channels: Int) -> Float {
        precondition(channels == 1 || channels == 2, "assets are mono or stereo")
        precondition(samples.count % channels == 0, "samples must be whole frames")
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        return peak > 0 ? peak / Float(Int16.max) : 1
    }

    /// `x` in steps of `1 / steps`, rounded to the nearest.
    @inline(__always)
    private static func round(_ x: Float, _ steps: Float) -> Int16 {
        Int16(max(-32767, min(32767, (x * steps).rounded())))
    }

    /// The first sample that is not silent, which stays so in 16 bits (at least one step, with
    /// its sign): a sound starts on its frame as it does in floats, where a cue's tone rises from
    /// a first sample far under half a step. Nil for silence.
    private static func onset(of samples: UnsafeBufferPointer<Float>) -> (index: Int, held: Int16)? {
        guard let i = samples.firstIndex(where: { $0 != 0 }) else { return nil }
        return (i, samples[i] > 0 ? 1 : -1)
    }

    /// `out` with its onset not rounded to silence.
    private static func keep(_ onset: (index: Int, held: Int16)?, in out: inout [Int16]) {
        if let onset, out[onset.index] == 0 { out[onset.index] = onset.held }
    }

    /// Rounds interleaved `samples` to 16 bits under a scale that fits their peak, and leaves
    /// `samples` empty (for a long bed's loop). With `pages`, the pages of floats already rounded
    /// go back to the system as it goes (they are not read again), so a long bed is never held
    /// both ways at once: rain's 31 s at 48 kHz stereo would be 17 MiB for that moment, the
    /// largest of a render.
    public init(channels: Int, consuming samples: inout [Float], pages: PageRelease? = nil) {
        let scale = Self.scale(fitting: samples, channels: channels)
        let steps = 1 / scale
        let count = samples.count
        var out: [Int16] = []
        out.reserveCapacity(count)
        let onset = samples.withUnsafeBufferPointer(Self.onset)
        samples.withUnsafeMutableBufferPointer { p in
            guard let base = p.baseAddress else { return }
            let page = max(1, pages?.pageSize ?? 1)
            let start = Int(bitPattern: base)
            // Only pages wholly inside the samples: the allocation's own header stays.
            var released = (start + page - 1) / page * page
            let chunk = 1 << 18
            var i = 0
            while i < count {
                let n = min(chunk, count - i)
                for k in i..<(i + n) { out.append(Self.round(p[k], steps)) }
                i += n
                let done = (start + i * MemoryLayout<Float>.stride) / page * page
                if let pages, done > released, i < count {
                    pages.release(UnsafeMutableRawPointer(bitPattern: released)!, done - released)
                    released = done
                }
            }
        }
        samples = []
        Self.keep(onset, in: &out)
        self.init(channels: channels, samples: out, scale: scale)
    }

    /// The sound as 32-bit floats.
    public var floats: [Float] { samples.map { Float($0) * scale } }

    /// Samples held at the fixed step `Int16.heldStep` (a bed decoded straight into 16 bits, a
    /// loop baked from one).
    public init(channels: Int, held samples: [Int16]) {
        precondition(channels == 1 || channels == 2, "assets are mono or stereo")
        precondition(samples.count % channels == 0, "samples must be whole frames")
        self.init(channels: channels, samples: samples, scale: Int16.heldStep)
    }
}

extension Int16 {
    /// A fixed step for audio held in 16 bits before its peak is known: 2^-14, so that full scale
    /// and 6 dB over it fit and a sample goes to a float and back exactly. Its rounding is 95 dB
    /// under full scale. A bed is decoded straight into it (never held in floats), and a pieced
    /// OGG holds the audio handed to its encoders in it.
    public static let heldStep: Float = 1.0 / 16384

    /// `x` rounded to the nearest step of `heldStep` (within ±2, the held range; a tie to the even
    /// step). The pieced encoder rounds every sample of a render so: clamped, then rounded by
    /// adding 1.5 × 2^23, which leaves the integer in the float's low bits, so there is no call and
    /// no check that could trap, and a loop of these runs as vector instructions.
    @inlinable @inline(__always) public init(held x: Float) {
        let y = Swift.max(-32768, Swift.min(32767, x * 16384))
        let bits = Int32(bitPattern: (y + 12_582_912).bitPattern)
        self.init(truncatingIfNeeded: bits &- 0x4B40_0000)
    }

    /// The value held, at `heldStep`.
    @inlinable @inline(__always) public var heldValue: Float { Float(self) * (1.0 / 16384) }
}

/// Gives memory pages back to the system: the one thing of the operating system a loop's rounding
/// asks for, handed in by the module that talks to it (`MedrenderIO`'s `ProcessMemory`), so this
/// module imports no C.
public struct PageRelease: Sendable {
    /// The system's page size in bytes.
    public let pageSize: Int
    /// Gives back `count` bytes of whole pages from `start`, which are not read again.
    public let release: @Sendable (UnsafeMutableRawPointer, Int) -> Void

    public init(pageSize: Int, release: @escaping @Sendable (UnsafeMutableRawPointer, Int) -> Void) {
        self.pageSize = pageSize
        self.release = release
    }
}
