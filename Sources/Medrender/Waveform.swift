import MedrenderCore
import Synchronization

/// The peak of each of `slices` equal slices of a stream's frames, fed in order: the waveform a
/// preview page draws. Frame `i` of `frames` falls in slice `i × slices / frames`.
public final class WaveformEnvelope {
    /// Slices in a preview page's waveform: two per unit of the plot's default width.
    public static let previewSlices = 2400

    public let slices: Int
    public let frames: Int64
    public let channels: Int
    public private(set) var peaks: [Float]
    private var position: Int64 = 0

    public init(slices: Int = previewSlices, frames: Int64, channels: Int) {
        self.slices = slices
        self.frames = frames
        self.channels = channels
        peaks = [Float](repeating: 0, count: frames > 0 ? slices : 0)
    }

    /// Adds the next `frameCount` interleaved frames (frames past `frames` are not counted).
    public func add(_ samples: UnsafePointer<Float>, frameCount: Int) {
        let count = Int(min(Int64(frameCount), max(0, frames - position)))
        var f = 0
        while f < count {
            let at = position + Int64(f)
            let slice = Int(at * Int64(slices) / frames)
            // The next slice's first frame: the least `i` with i × slices / frames ≥ slice + 1.
            let next = (Int64(slice + 1) * frames + Int64(slices) - 1) / Int64(slices)
            let n = Int(min(Int64(count - f), next - at))
            peaks[slice] = max(peaks[slice], SamplePeak.largestMagnitude(samples + f * channels, count: n * channels))
            f += n
        }
        position += Int64(frameCount)
    }
}

/// The waveforms of the files renders wrote, by path, as they went to the encoder: a build's preview
/// pages draw them instead of decoding each file again. Safe to share between threads.
public final class WaveformStore: Sendable {
    private let peaks = Mutex<[String: [Float]]>([:])

    public init() {}

    /// The waveform recorded for the file at `path`, if a render wrote it.
    public func peaks(for path: String) -> [Float]? { peaks.withLock { $0[path] } }

    func record(_ envelope: [Float], for path: String) { peaks.withLock { $0[path] = envelope } }
}
