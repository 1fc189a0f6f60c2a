import Foundation
import Synchronization
import MedrenderCore
import MedrenderIO

/// Decodes an OGG's packets on a thread of its own while the encoder writes them, and measures
/// what they decode to: the file is checked as it is written instead of read again after, and the
/// check runs on the core the mixer leaves idle.
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

    private let queue = HandOffQueue<VorbisPacket>(capacity: queueLimit, wake: batch)
    /// What the stream decoded to, once the decoder has ended.
    private let outcome = Mutex<Result<DecodedFigures, any Error>?>(nil)
    /// Signalled once the decoder has ended (and again by each waiter, so every waiter passes).
    private let ended = DispatchSemaphore(value: 0)

    /// Starts decoding the stream of `encoder` (from its headers on), keeping its first
    /// `totalFrames` frames: the stream's last packet decodes past the end, which a reader trims.
    init(encoder: any VorbisPacketSource, totalFrames: Int64) throws {
        let decoder = try VorbisPacketDecoder(headers: encoder.headerPackets)
        let measure = try DecodedMeasure(channels: decoder.channels, rate: decoder.rate)
        let box = Unchecked((decoder, measure))
        BlockingWork.start("medrender decode check") { [self] in
            let result = Result { try self.run(decoder: box.value.0, measure: box.value.1, totalFrames: totalFrames) }
            // A decoder that failed stops the encoder: its next packet throws the failure.
            if case .failure(let error) = result { queue.stop(error) }
            outcome.withLock { $0 = result }
            ended.signal()
        }
        encoder.packetObserver = { [self] packet in try self.queue.put(packet) }
    }

    /// The decoder and its meter, made here and handed to the decoding thread, which alone uses
    /// them from then on (hence `@unchecked`).
    private struct Unchecked<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }

    /// Waits for the decoder to take every packet, and gives what the stream decodes to.
    func finish() throws -> DecodedFigures {
        queue.finish()
        return try waitForDecoder().get()
    }

    /// Stops the decoder without waiting for its figures (the render failed or was stopped).
    func stop() {
        queue.stop(RenderCancelled())
        _ = waitForDecoder()
    }

    private func waitForDecoder() -> Result<DecodedFigures, any Error> {
        ended.wait()
        ended.signal()
        return outcome.withLock { $0! }
    }

    /// Decodes every packet handed over until the stream ends, and gives what it decoded to.
    private func run(decoder: VorbisPacketDecoder, measure: DecodedMeasure, totalFrames: Int64) throws -> DecodedFigures {
        // The encoder's thread is the render's critical path: when the two cores have more to do
        // than they can, this thread gives way to it (it has until the encoder ends to catch up).
        // On Linux a nice value is a thread's own, and 0 names the calling thread.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        let channels = decoder.channels
        var interleaved = [Float](repeating: 0, count: 4096 * channels)
        var decoded: Int64 = 0
        var batch: [VorbisPacket] = []
        while try queue.take(upTo: Self.batch, into: &batch) {
            for packet in batch {
                try decoder.decode(packet) { pcm, frames in
                    let keep = Int(min(Int64(frames), max(0, totalFrames - decoded)))
                    decoded += Int64(frames)
                    guard keep > 0 else { return }
                    if interleaved.count < keep * channels { interleaved = [Float](repeating: 0, count: keep * channels) }
                    try interleaved.withUnsafeMutableBufferPointer { out in
                        for c in 0..<channels {
                            let channel = pcm[c]!
                            for i in 0..<keep { out[i * channels + c] = channel[i] }
                        }
                        try measure.add(out.baseAddress!, frameCount: keep)
                    }
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        return try measure.figures()
    }
}
