import Foundation
import MedrenderCore
import MedrenderIO

/// Bytes made on a thread of their own (`BlockingWork`) as an asynchronous sequence of chunks: the
/// one hand-over from blocking work to a task that medrender has, used by a render's stream
/// (`RenderJob.chunks`, what the server sends) and the studio's takes. The producer writes into a
/// `RenderSink` and waits while `capacity` chunks are not yet taken, so a slow reader holds a
/// bounded amount in memory; a reader that stops early (it drops its iterator, or its task is
/// cancelled) makes the producer's next write throw `RenderCancelled`, which stops it and frees
/// everything it held. The producer starts when the sequence is iterated; `completion` gets what it
/// returned (or its error) once it has ended, however it ended.
public struct ChunkStream<Outcome: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let name: String
    let capacity: Int
    let produce: @Sendable (any RenderSink) throws -> Outcome
    let completion: (@Sendable (Result<Outcome, any Error>) -> Void)?

    public init(_ name: String, capacity: Int, produce: @escaping @Sendable (any RenderSink) throws -> Outcome,
                completion: (@Sendable (Result<Outcome, any Error>) -> Void)? = nil) {
        self.name = name
        self.capacity = Swift.max(1, capacity)
        self.produce = produce
        self.completion = completion
    }

    /// Takes the chunks in order. Sendable (it holds only the channel, which locks), so a response
    /// may take an iterator made, and its producer started, before the response is returned.
    public final class AsyncIterator: AsyncIteratorProtocol, Sendable {
        let channel: ChunkChannel

        init(_ channel: ChunkChannel) { self.channel = channel }

        deinit { channel.cancel() }

        public func next() async throws -> [UInt8]? { try await channel.next() }

        /// Stops the producer (its next write throws) and ends a waiting `next`: the reader is gone.
        public func cancel() { channel.cancel() }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let channel = ChunkChannel(capacity: capacity)
        let produce = self.produce, completion = self.completion
        BlockingWork.start(name) {
            let result = Result { try produce(channel) }
            switch result {
            case .success: channel.finish(nil)
            case .failure(let error): channel.finish(error)
            }
            completion?(result)
        }
        return AsyncIterator(channel)
    }
}

/// A render's encoded bytes as they are written; see `ChunkStream`.
public typealias RenderChunks = ChunkStream<RenderReport>

extension RenderJob {
    /// The render's bytes as they are encoded; see `ChunkStream`. `completion` gets the report
    /// (or the error) once the render has ended, however it ended.
    public func chunks(capacity: Int = 64, progress: (@Sendable (RenderProgress) -> Void)? = nil,
                       completion: (@Sendable (Result<RenderReport, any Error>) -> Void)? = nil) -> RenderChunks {
        let job = self
        return ChunkStream("medrender render", capacity: capacity, produce: { sink in try job.run(to: .sink(sink), progress: progress) },
                           completion: completion)
    }
}

/// The render went on after its reader stopped reading.
public struct RenderCancelled: DiagnosedError, Hashable {
    public var category: ErrorCategory { .io }
    public var description: String { "the reader of the stream went away; the render was stopped" }
}

/// Chunks handed from a producer's thread to an asynchronous reader, at most `capacity` waiting:
/// a render's sink over a `HandOffQueue`.
final class ChunkChannel: RenderSink, Sendable {
    private let queue: HandOffQueue<[UInt8]>

    init(capacity: Int) { queue = HandOffQueue(capacity: capacity) }

    var isStopped: Bool { queue.isStopped }

    /// The render's side: hands over a copy of `bytes`, waiting while the reader is behind; throws
    /// `RenderCancelled` once the reader has gone.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        try queue.put([UInt8](bytes))
    }

    /// The render's side: no more chunks; `error` when it failed.
    func finish(_ error: (any Error)?) { queue.finish(error) }

    /// The reader's side: the next chunk, or nil at the end.
    func next() async throws -> [UInt8]? { try await queue.next(cancelled: RenderCancelled()) }

    /// The reader went away: the render's next write fails, and a waiting read ends.
    func cancel() { queue.stop(RenderCancelled()) }
}
