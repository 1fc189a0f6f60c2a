import Foundation
import Synchronization
import MedrenderCore
import MedrenderIO

/// Decodes an OGG's packets on a thread of its own while the encoder writes them, and measures
/// what they decode to: the file is checked as it is written instead of read again after, and the
/// check runs on the core the mixer leaves idle.
///
/// It decodes every packet (`WholeDecode`: what the stream decodes to, its loudness too), or only
/// those that can hold the stream's peaks (`SelectiveDecode`: its true peak and sample peak, the
/// same as a whole decode finds), or both (to compare them).
///
/// The packets go through a `HandOffQueue`: at most `queueLimit` wait, and a `batch` of them is
/// being decoded; the encoder waits when the decoder falls that far behind, so memory does not
/// grow with the session's length.
final class LiveVorbisCheck: Sendable {
    /// About 22 s of audio at 48 kHz (a long block's packet is 1,024 frames): the decoder can
    /// give way to the encoders that long, and waits at the end for no more than that. A packet
    /// is held in an allocation of its own (about 300 bytes): 4,096 of them, and as many being
    /// decoded, were 2 MiB of a long render's peak.
    static let queueLimit = 1024
    /// The decoder is woken for this many packets at a time (or the end), not for each one, and
    /// takes this many at a time.
    static let batch = 64

    /// What the check found once the stream ended.
    struct Outcome: Sendable {
        /// What the whole stream decodes to, when every packet was decoded.
        var whole: DecodedFigures?
        /// What the packets that can hold the peaks decode to, when they were picked.
        var selective: SelectiveDecode.Figures?
        /// The least selection margin that would have found the whole decode's true peak and
        /// sample peak, dB, when both decodes ran (`WholeDecode.Required`).
        var required: WholeDecode.Required?
    }

    private let queue = HandOffQueue<VorbisPacket>(capacity: queueLimit, wake: batch)
    /// The output's stretch peaks, when packets are picked by them.
    private let peaks: StretchPeaks?
    /// What the stream decoded to, once the decoder has ended.
    private let outcome = Mutex<Result<Outcome, any Error>?>(nil)
    /// Signalled once the decoder has ended (and again by each waiter, so every waiter passes).
    private let ended = DispatchSemaphore(value: 0)

    /// Starts decoding the stream of `encoder` (from its headers on), keeping its first
    /// `totalFrames` frames: the stream's last packet decodes past the end, which a reader trims.
    /// Every packet is decoded when `whole`; with `peaks` (the output's, before encoding), only
    /// the packets that can hold the peaks are, too, picked with `marginDecibels`.
    init(encoder: any VorbisPacketSource, totalFrames: Int64, whole: Bool = true, peaks: StretchPeaks? = nil,
         marginDecibels: Double = 0) throws {
        precondition(whole || peaks != nil, "a check decodes something")
        self.peaks = peaks
        let headers = encoder.headerPackets
        let wholeDecode = whole ? try WholeDecode(headers: headers, totalFrames: totalFrames) : nil
        let selective = try peaks.map { try SelectiveDecode(headers: headers, totalFrames: totalFrames, peaks: $0, marginDecibels: marginDecibels) }
        let box = Unchecked((wholeDecode, selective))
        BlockingWork.start("medrender decode check") { [self] in
            let result = Result { try self.run(whole: box.value.0, selective: box.value.1) }
            // A decoder that failed stops the encoder: its next packet throws the failure.
            if case .failure(let error) = result { queue.stop(error) }
            outcome.withLock { $0 = result }
            ended.signal()
        }
        encoder.packetObserver = { [self] packet in try self.queue.put(packet) }
    }

    /// The decoders, made here and handed to the decoding thread, which alone uses them from
    /// then on (hence `@unchecked`).
    private struct Unchecked<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }

    /// Waits for the decoder to take every packet, and gives what the stream decodes to.
    func finish() throws -> Outcome {
        queue.finish()
        return try waitForDecoder().get()
    }

    /// Stops the decoder without waiting for its figures (the render failed or was stopped).
    func stop() {
        queue.stop(RenderCancelled())
        peaks?.stop(RenderCancelled())
        _ = waitForDecoder()
    }

    private func waitForDecoder() -> Result<Outcome, any Error> {
        ended.wait()
        ended.signal()
        return outcome.withLock { $0! }
    }

    /// Decodes the packets handed over until the stream ends, and gives what they decoded to.
    private func run(whole: WholeDecode?, selective: SelectiveDecode?) throws -> Outcome {
        // The encoder's thread is the render's critical path: when the two cores have more to do
        // than they can, this thread gives way to it (it has until the encoder ends to catch up).
        // On Linux a nice value is a thread's own, and 0 names the calling thread.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        // The frames a packet's decoded frames depend on reach half a long block either side.
        let reach = Int64((whole?.decoder ?? selective!.decoder).longBlockFrames / 2)
        var start: Int64 = 0
        var batch: [VorbisPacket] = []
        while try queue.take(upTo: Self.batch, into: &batch) {
            for packet in batch {
                // The packet's frames follow the previous packet's position, up to its own.
                let end = max(start, packet.granulePosition)
                let window = try peaks?.peaks(in: (start - reach)..<(end + reach))
                try whole?.take(packet, from: start, window: window)
                try selective?.take(packet, from: start, window: window!)
                start = end
            }
            batch.removeAll(keepingCapacity: true)
        }
        return Outcome(whole: try whole?.measure.figures(), selective: selective?.figures, required: whole?.required)
    }
}

/// A stretch's largest sample before encoding, and the largest up to its end (`StretchPeaks`).
typealias PeakWindow = (local: Float, soFar: Float)

/// A Vorbis decoder whose output is kept up to the stream's length, interleaved.
class TrimmedVorbisDecoder {
    let decoder: VorbisPacketDecoder
    let totalFrames: Int64
    private var interleaved: [Float]

    init(decoder: VorbisPacketDecoder, totalFrames: Int64) {
        self.decoder = decoder
        self.totalFrames = totalFrames
        interleaved = [Float](repeating: 0, count: 4096 * decoder.channels)
    }

    /// Decodes `packet`, whose frames start at `start`, and hands its frames up to the stream's
    /// length to `output`, interleaved.
    func decode(_ packet: VorbisPacket, from start: Int64, output: (UnsafePointer<Float>, Int) throws -> Void) throws {
        let channels = decoder.channels
        var at = start
        try decoder.decode(packet) { pcm, frames in
            let keep = Int(min(Int64(frames), max(0, totalFrames - at)))
            at += Int64(frames)
            guard keep > 0 else { return }
            if interleaved.count < keep * channels { interleaved = [Float](repeating: 0, count: keep * channels) }
            try interleaved.withUnsafeMutableBufferPointer { out in
                for c in 0..<channels {
                    let channel = pcm[c]!
                    for i in 0..<keep { out[i * channels + c] = channel[i] }
                }
                try output(out.baseAddress!, keep)
            }
        }
    }
}

/// Decodes every packet and measures what they decode to: loudness, range and peaks.
final class WholeDecode: TrimmedVorbisDecoder {
    let measure: DecodedMeasure
    /// The least margin, dB, that picks a packet where the true peak and the sample peak were
    /// found (`SelectiveDecode`): the packet or the one before it, whichever needs less.
    struct Required: Sendable {
        var truePeakDecibels = 0.0
        var samplePeakDecibels = 0.0
    }
    private(set) var required = Required()
    private var previous: Double = .infinity

    init(headers: [VorbisPacket], totalFrames: Int64) throws {
        let decoder = try VorbisPacketDecoder(headers: headers)
        measure = try DecodedMeasure(channels: decoder.channels, rate: decoder.rate)
        super.init(decoder: decoder, totalFrames: totalFrames)
    }

    func take(_ packet: VorbisPacket, from start: Int64, window: PeakWindow?) throws {
        let (peak, sample) = (measure.truePeakLinear, measure.samplePeak)
        try decode(packet, from: start) { try measure.add($0, frameCount: $1) }
        guard let window else { return }
        // The margin that picks this packet: how far its window is under the largest so far.
        let own = window.local > 0 ? 20 * log10(Double(window.soFar / window.local)) : .infinity
        let needed = min(own, previous)
        if measure.truePeakLinear > peak { required.truePeakDecibels = needed }
        if measure.samplePeak > sample { required.samplePeakDecibels = needed }
        previous = own
    }
}

/// Decodes only the packets that can hold the stream's peaks, and measures their true peak and
/// sample peak. A codec moves a peak by little, so the largest peak as decoded lies where the
/// output before encoding comes near its largest: a packet is decoded when the largest sample
/// of the frames it depends on (its own, and half a long block either side) comes within the
/// margin of the largest sample so far, and so is the packet after it. Decoding starts again
/// from the two packets before a picked one: the first gives no audio, the second leads the
/// true-peak filter in. What they find is what a whole decode finds, so long as the codec moves
/// no peak by more than the margin (`DecodedCheck.selectionMarginDecibels`, measured over the
/// stock library, which a test holds).
///
/// The loudness is not measured as decoded, which takes every packet: what the codec does to it
/// is, on a sample. A run of `sampleRun` packets in every `sampleEvery` is decoded too, wherever
/// it falls (about `sampleRuns` runs over the stream, one in every 16 packets at least); each whole stretch of their frames is K-weighted as the loudness meter weighs it, and
/// its energy set against the same stretch's before encoding (`StretchPeaks`): the loudness as
/// decoded is the output's before encoding moved by the ratio of the two sums over the stretches
/// the loudness's relative gate keeps (`StretchEnergies.shift`).
/// The packets picked for their peaks are not counted: where a codec adds to a peak it does not
/// take from the whole, so they would tell the shift wrong.
final class SelectiveDecode: TrimmedVorbisDecoder {
    struct Figures: Sendable {
        /// The true peak (dBTP) and the sample peak found.
        var peaks: (true: Double, sample: Float)
        /// The stretches sampled to weigh what the codec did to the loudness.
        var energies: StretchEnergies
        /// How many of the stream's audio packets were decoded.
        var packets: (decoded: Int, of: Int)
    }

    /// A run of this many packets in every `sampleEvery` is decoded to weigh the codec's loudness shift.
    static let sampleRun = 8
    static let sampleRuns = 300
    private let sampleEvery: Int

    private let ratio: Float
    private let meter: TruePeakMeter
    /// Where the sampled packets being decoded start (nil outside a sample).
    private var sampleStart: Int64?
    private let peaks: StretchPeaks
    /// The K-weighting of the run of packets being decoded, from its lead-in on.
    private var weighting: LoudnessGate?
    /// The K-weighted energies of the whole stretches sampled, as decoded and before encoding.
    private var energies = StretchEnergies()
    private var sample: Float = 0
    /// The two packets before the next one, with the position of the first's frames.
    private var recent: [(packet: VorbisPacket, start: Int64)] = []
    /// Whether the packet before the next one was decoded, and whether it was picked.
    private var decodedLast = false
    private var pickedLast = false
    private var packets = 0
    private var decoded = 0

    init(headers: [VorbisPacket], totalFrames: Int64, peaks: StretchPeaks, marginDecibels: Double) throws {
        ratio = Float(pow(10, -marginDecibels / 20))
        self.peaks = peaks
        let decoder = try VorbisPacketDecoder(headers: headers)
        // A stream has about one packet for each half long block (more where short blocks are).
        let packets = Int(totalFrames) / max(1, decoder.longBlockFrames / 2)
        sampleEvery = max(16, packets / Self.sampleRuns)
        meter = TruePeakMeter(channels: decoder.channels, rate: decoder.rate)
        super.init(decoder: decoder, totalFrames: totalFrames)
    }

    var figures: Figures {
        Figures(peaks: (20 * log10(Double(meter.peak)), sample), energies: energies, packets: (decoded, packets))
    }

    func take(_ packet: VorbisPacket, from start: Int64, window: PeakWindow) throws {
        let sampled = packets % sampleEvery < Self.sampleRun
        packets += 1
        sampleStart = sampled ? sampleStart ?? start : nil
        let picked = sampled || window.local > 0 && window.local >= window.soFar * ratio
        defer {
            // The oldest gives way in place: no new array per packet.
            if recent.count == 2 { recent.removeFirst() }
            recent.append((packet, start))
            pickedLast = picked
        }
        guard picked || pickedLast else {
            decodedLast = false
            return
        }
        if !decodedLast { try restart(before: start) }
        decoded += 1
        try decode(packet, from: start) { frames, count in
            sample = max(sample, SamplePeak.largestMagnitude(frames, count: count * decoder.channels))
            meter.add(frames, frameCount: count)
            weighting?.add(frames, frameCount: count)
        }
        decodedLast = true
    }

    /// Decodes from the two packets before the one whose frames start at `start`: the first
    /// gives nothing, the second leads the true-peak filter and the K-weighting in. The stretches
    /// are weighed from `start` on, the first counted only when it starts there.
    private func restart(before start: Int64) throws {
        try decoder.restart()
        let weighting = LoudnessGate(channels: decoder.channels, rate: decoder.rate)
        self.weighting = weighting
        for (earlier, from) in recent {
            decoded += 1
            try decode(earlier, from: from) { frames, count in
                sample = max(sample, SamplePeak.largestMagnitude(frames, count: count * decoder.channels))
                meter.prime(frames, frameCount: count)
                weighting.add(frames, frameCount: count)
            }
        }
        let stretch = Int64(StretchPeaks.stretchFrames)
        let phase = Int(start % stretch)
        var index = Int(start / stretch)
        var whole = phase == 0
        weighting.reportStretches(of: StretchPeaks.stretchFrames, phase: phase) { [unowned self] energy in
            defer { index += 1; whole = true }
            guard whole, let sampleStart, Int64(index) * stretch >= sampleStart, let before = peaks.energy(ofStretch: index) else { return }
            energies.add(decoded: energy, encoded: before)
        }
    }
}

/// The K-weighted energies of stretches as decoded and before encoding, summed by how loud each
/// was before encoding (0.5-dB steps from −70 LUFS): what the codec did to the loudness is read
/// over the stretches the relative gate of the loudness keeps, as the loudness is.
struct StretchEnergies: Sendable {
    private var decoded = [Double](repeating: 0, count: 160)
    private var encoded = [Double](repeating: 0, count: 160)

    mutating func add(decoded d: Double, encoded e: Double) {
        // A stretch's loudness as the meter reads a block's (a mono stretch counts twice).
        let level = -0.691 + 10 * log10(max(e, 1e-30) / Double(StretchPeaks.stretchFrames))
        guard level >= -70 else { return }
        let step = min(159, Int((level + 70) * 2))
        decoded[step] += d
        encoded[step] += e
    }

    /// What the codec did to the loudness, dB, over the stretches no quieter than 10 LU under
    /// `loudness` (the output's before encoding, LUFS); nil when none was sampled.
    func shift(gatedUnder loudness: Double) -> Double? {
        guard loudness.isFinite else { return nil }
        let first = max(0, min(159, Int((loudness - 10 + 70) * 2)))
        let d = decoded[first...].reduce(0, +), e = encoded[first...].reduce(0, +)
        return d > 0 && e > 0 ? 10 * log10(d / e) : nil
    }
}
