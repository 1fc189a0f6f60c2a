import Foundation
import MedrenderCore

/// The largest sample of each stretch of `stretchFrames` frames of an output before it is
/// encoded, the largest so far at each, and its K-weighted energy: written by the thread that
/// mixes (each block before it goes to the encoder), read by the check that decodes the encoded
/// stream, which uses the peaks to decode only the packets that can hold the stream's peak, and
/// the energies to tell how far the codec moved the loudness in them (`SelectiveDecode`).
///
/// The check waits for the stretches it asks for; the mixer is ahead of it by the encoder's
/// queue, and once every frame has been added (`finish`) it waits no more. The stretches the check
/// is done with are dropped, so memory does not grow with the session's length.
final class StretchPeaks: @unchecked Sendable {
    static let stretchFrames = 128

    let channels: Int
    private let condition = NSCondition()
    // Under `condition`:
    /// Each stretch's largest magnitude and the largest up to it, from stretch `first` on.
    private var peaks: [Float] = []
    private var largestSoFar: [Float] = []
    private var energies: [Double] = []
    private var first = 0
    private var finished = false
    private var stopped: (any Error)?
    // The mixer's own: the stretch being filled.
    private var partial: Float = 0
    private var partialFrames = 0
    private var largest: Float = 0
    private var energiesDone: [Double] = []
    /// The stretches ended by the frames being added, kept between calls (no allocation a block).
    private var peaksDone: [Float] = []

    init(channels: Int) { self.channels = channels }

    /// The mixer's next `frameCount` frames (interleaved).
    func add(_ frames: UnsafePointer<Float>, frameCount: Int) {
        var offset = 0
        while offset < frameCount {
            let n = min(Self.stretchFrames - partialFrames, frameCount - offset)
            partial = max(partial, SamplePeak.largestMagnitude(frames + offset * channels, count: n * channels))
            partialFrames += n
            offset += n
            if partialFrames == Self.stretchFrames {
                peaksDone.append(partial)
                partial = 0
                partialFrames = 0
            }
        }
        publish(finishing: false)
    }

    /// The K-weighted energy of the next stretch (the output's meter hands them over as it
    /// measures, before the stretch's frames are added here: `LoudnessGate.reportStretches`).
    func addEnergy(_ energy: Double) { energiesDone.append(energy) }

    /// Every frame has been added.
    func finish() {
        if partialFrames > 0 { peaksDone.append(partial) }
        publish(finishing: true)
        partialFrames = 0
    }

    /// Ends every wait with `error` (the render stopped).
    func stop(_ error: any Error) {
        condition.lock()
        stopped = error
        condition.broadcast()
        condition.unlock()
    }

    private func publish(finishing: Bool) {
        guard !peaksDone.isEmpty || finishing else { return }
        condition.lock()
        for peak in peaksDone {
            largest = max(largest, peak)
            peaks.append(peak)
            largestSoFar.append(largest)
        }
        energies += energiesDone
        energiesDone.removeAll(keepingCapacity: true)
        peaksDone.removeAll(keepingCapacity: true)
        finished = finished || finishing
        condition.broadcast()
        condition.unlock()
    }

    /// The largest sample in `frames` (clipped to what the output has), and the largest up to
    /// its end; waits until the mixer has added them. Drops the stretches before `frames`: the
    /// next call asks for none of them.
    func peaks(in frames: Range<Int64>) throws -> (local: Float, soFar: Float) {
        let low = Int(max(0, frames.lowerBound) / Int64(Self.stretchFrames))
        let high = Int((max(frames.lowerBound, frames.upperBound - 1)) / Int64(Self.stretchFrames))
        condition.lock()
        defer { condition.unlock() }
        while first + peaks.count <= high, !finished, stopped == nil { condition.wait() }
        if let stopped { throw stopped }
        // Drop what no later call asks for (calls move forward), a batch at a time.
        if low - first > 4096 {
            let drop = min(low - first, peaks.count)
            peaks.removeFirst(drop)
            largestSoFar.removeFirst(drop)
            energies.removeFirst(min(drop, energies.count))
            first += drop
        }
        let end = min(high, first + peaks.count - 1)
        guard end >= max(low, first) else { return (0, largestSoFar.last ?? 0) }
        var local: Float = 0
        for i in max(low, first)...end { local = max(local, peaks[i - first]) }
        return (local, largestSoFar[end - first])
    }

    /// The K-weighted energy of stretch `index` before encoding, when it has been measured.
    func energy(ofStretch index: Int) -> Double? {
        condition.lock()
        defer { condition.unlock() }
        let i = index - first
        return i >= 0 && i < energies.count ? energies[i] : nil
    }
}
