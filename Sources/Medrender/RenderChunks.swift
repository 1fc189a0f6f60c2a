import Foundation
import MedrenderCore

/// A render's bytes as an asynchronous sequence of chunks, produced as the encoder writes them:
/// what a server streams to its client. The render runs on its own thread and waits while
/// `capacity` chunks are not yet taken, so a slow reader holds a bounded amount in memory. A reader
/// that stops early (it drops its iterator, or its task is cancelled) stops the render, which
/// then frees everything it held.
public struct RenderChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let job: RenderJob
    let capacity: Int
    let progress: (@Sendable (RenderProgress) -> Void)?
    let completion: (@Sendable (Result<RenderReport, any Error>) -> Void)?

    public final class AsyncIterator: AsyncIteratorProtocol {
        let channel: ChunkChannel

        init(_ channel: ChunkChannel) { self.channel = channel }

        deinit { channel.cancel() }

        public func next() async throws -> [UInt8]? { try await channel.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let channel = ChunkChannel(capacity: capacity)
        let job = self.job, progress = self.progress, completion = self.completion
        let thread = Thread {
            let result = Result { try job.run(to: .sink(channel), progress: progress) }
            switch result {
            case .success: channel.finish(nil)
            case .failure(let error): channel.finish(error)
            }
            completion?(result)
        }
        thread.name = "medrender render"
        thread.start()
        return AsyncIterator(channel)
    }
}

extension RenderJob {
    /// The render's bytes as they are encoded; see `RenderChunks`. `completion` gets the report
    /// (or the error) once the render has ended, however it ended.
    public func chunks(capacity: Int = 64, progress: (@Sendable (RenderProgress) -> Void)? = nil,
                       completion: (@Sendable (Result<RenderReport, any Error>) -> Void)? = nil) -> RenderChunks {
        RenderChunks(job: self, capacity: max(1, capacity), progress: progress, completion: completion)
    }
}

/// The render went on after its reader stopped reading.
public struct RenderCancelled: DiagnosedError, Hashable {
    public var category: ErrorCategory { .io }
    public var description: String { "the reader of the stream went away; the render was stopped" }
}

/// Chunks handed from the render's thread to an asynchronous reader, at most `capacity` waiting.
// `@unchecked`: the buffer, the waiting continuation, the flags and the failure are read and
// written under `condition` only; `capacity` is a constant.
final class ChunkChannel: RenderSink, @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer: [[UInt8]] = []
    private var head = 0
    private var waiting: CheckedContinuation<[UInt8]?, any Error>?
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    private var pending: Int { buffer.count - head }

    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// The render's side: hands over a copy of `bytes`, waiting while the reader is behind.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let chunk = [UInt8](bytes)
        condition.lock()
        while pending >= capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            throw RenderCancelled()
        }
        if let reader = waiting {
            waiting = nil
            condition.unlock()
            reader.resume(returning: chunk)
            return
        }
        buffer.append(chunk)
        condition.unlock()
    }

    /// The render's side: no more chunks; `error` when it failed.
    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        failure = error
        let reader = waiting
        waiting = nil
        condition.unlock()
        if let reader {
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
    }

    /// The reader's side: the next chunk, or nil at the end.
    func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (reader: CheckedContinuation<[UInt8]?, any Error>) in
                condition.lock()
                if pending > 0 {
                    let chunk = buffer[head]
                    buffer[head] = []
                    head += 1
                    if head > 256, head * 2 > buffer.count {
                        buffer.removeFirst(head)
                        head = 0
                    }
                    condition.signal()
                    condition.unlock()
                    reader.resume(returning: chunk)
                } else if finished || cancelled {
                    let error = cancelled ? RenderCancelled() : failure
                    condition.unlock()
                    if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
                } else {
                    waiting = reader
                    condition.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The reader went away: the render's next write fails, and a waiting read ends.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        let reader = waiting
        waiting = nil
        condition.unlock()
        reader?.resume(throwing: RenderCancelled())
    }
}
