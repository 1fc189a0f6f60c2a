import Foundation

/// Values handed from a producing thread to one consumer, in order, at most `capacity` waiting:
/// the producer waits while the queue is full, so memory stays bounded however far the consumer
/// falls behind. The consumer is a thread that takes a batch at a time (`take`, or `drain` without
/// waiting: an OGG's decode check, a pieced OGG's pieces and their packets) or a task that awaits
/// each value without holding a thread (`next`: a render's bytes read by the server). Either side
/// may end it: the producer with `finish` (the consumer gets the rest, then the end or the
/// producer's error), the consumer with `stop` (the producer's next `put` throws the reason). A
/// `SlotRing` hands memory allocated once between two threads through two of these, carrying its
/// slots' indices; a pieced OGG's buffers go round through one, which its pieces' threads all
/// put back into (`put` may be called from several threads).
// `@unchecked`: the values, the waiting reader, the flags and the errors are read and written
// under `condition` only; `capacity` and `wake` are constants.
public final class HandOffQueue<Element: Sendable>: @unchecked Sendable {
    public let capacity: Int
    /// A consumer waiting in `take` is woken when this many values wait (or the queue ends), not
    /// for each one.
    private let wake: Int
    private let condition = NSCondition()
    /// The values handed over; those taken, before `head`, are nil until the array is compacted.
    private var values: [Element?] = []
    private var head = 0
    private var ended = false
    private var failure: (any Error)?
    private var stopReason: (any Error)?
    private var reader: CheckedContinuation<Element?, any Error>?

    public init(capacity: Int, wake: Int = 1) {
        self.capacity = max(1, capacity)
        self.wake = min(max(1, wake), self.capacity)
    }

    private var pending: Int { values.count - head }

    /// True once the consumer has stopped the queue.
    public var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopReason != nil
    }

    /// The producer's side: hands over `value`, waiting while `capacity` values wait. Throws the
    /// consumer's reason once it has stopped.
    public func put(_ value: Element) throws {
        condition.lock()
        while pending >= capacity && stopReason == nil { condition.wait() }
        if let stopReason {
            condition.unlock()
            throw stopReason
        }
        if let waiting = reader {
            reader = nil
            condition.unlock()
            waiting.resume(returning: value)
            return
        }
        values.append(value)
        if pending == wake { condition.broadcast() }
        condition.unlock()
    }

    /// The producer's side: no more values; `error` when it failed, which the consumer gets after
    /// the values already handed over.
    public func finish(_ error: (any Error)? = nil) {
        condition.lock()
        ended = true
        failure = error
        condition.broadcast()
        let waiting = reader
        reader = nil
        condition.unlock()
        if let waiting {
            if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
        }
    }

    /// The consumer's side: it takes no more. The producer's next `put` (or the one waiting) throws
    /// `reason`; a consumer waiting in `take` or `next` ends.
    public func stop(_ reason: any Error) {
        condition.lock()
        if stopReason == nil { stopReason = reason }
        condition.broadcast()
        let waiting = reader
        reader = nil
        condition.unlock()
        waiting?.resume(throwing: reason)
    }

    /// The consumer's side, on a thread: moves up to `limit` values into `batch`, waiting until
    /// `wake` of them wait or the queue has ended. False, with nothing moved, once the queue has
    /// ended and every value was taken, or the consumer has stopped it; throws the producer's
    /// error after its last value.
    public func take(upTo limit: Int, into batch: inout [Element]) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while pending < wake && !ended && stopReason == nil { condition.wait() }
        if stopReason != nil { return false }
        if pending == 0 {
            if let failure { throw failure }
            return false
        }
        let n = min(max(1, limit), pending)
        for i in head..<head + n { batch.append(values[i]!) }
        removeFirst(n)
        return true
    }

    /// The consumer's side, on a thread, without waiting: moves every value waiting into `batch`.
    /// False once the queue has ended and every value was taken (or the consumer has stopped it);
    /// throws the producer's error after its last value.
    public func drain(into batch: inout [Element]) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopReason != nil { return false }
        let n = pending
        if n > 0 {
            for i in head..<head + n { batch.append(values[i]!) }
            removeFirst(n)
        }
        guard ended else { return true }
        if let failure { throw failure }
        return false
    }

    /// The consumer's side, in a task: the next value, or nil at the end; throws the producer's
    /// error after its last value. A cancelled task stops the queue with `cancelled`.
    public func next(cancelled: @autoclosure @escaping @Sendable () -> any Error) async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiting: CheckedContinuation<Element?, any Error>) in
                condition.lock()
                if pending > 0 {
                    let value = values[head]!
                    removeFirst(1)
                    condition.unlock()
                    waiting.resume(returning: value)
                } else if let stopReason {
                    condition.unlock()
                    waiting.resume(throwing: stopReason)
                } else if ended {
                    let error = failure
                    condition.unlock()
                    if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
                } else {
                    reader = waiting
                    condition.unlock()
                }
            }
        } onCancel: {
            stop(cancelled())
        }
    }

    /// Drops the first `n` waiting values (under `condition`) and wakes a producer waiting for room;
    /// the array is compacted once most of it is taken.
    private func removeFirst(_ n: Int) {
        for i in head..<head + n { values[i] = nil }
        head += n
        if head == values.count {
            values.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 256, head * 2 > values.count {
            values.removeFirst(head)
            head = 0
        }
        condition.broadcast()
    }
}
