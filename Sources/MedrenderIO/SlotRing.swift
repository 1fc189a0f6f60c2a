import Dispatch
import Synchronization

/// The hand-off of memory allocated once between two threads (values go through a
/// `HandOffQueue`): `depth` slots that a producer, on a thread of its own, fills in turn and a
/// consumer, on the calling thread, reads in the same order. What a slot holds is its user's (pass 2's blocks of samples, the video's pictures, in memory allocated
/// once); the ring hands each slot from one thread to the other, so no Swift collection is shared
/// between them. A consumer that throws stops the producer, and the producer is joined before
/// `run` returns, however it ends. A ring runs once.
// `@unchecked`: each slot and its end mark belong to one thread at a time, as the semaphores hand
// them over; the stop flag is a Mutex.
public final class SlotRing: @unchecked Sendable {
    public let depth: Int
    /// Whether each slot, as handed over, is the producer's last (it holds nothing).
    private let last: UnsafeMutablePointer<Bool>
    // Every semaphore starts at 0 (libdispatch traps on releasing one below its starting value,
    // which a stopped ring may leave).
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    public init(depth: Int) {
        self.depth = max(1, depth)
        last = .allocate(capacity: self.depth)
        last.initialize(repeating: false, count: self.depth)
        for _ in 0..<self.depth { free.signal() }
    }

    deinit { last.deallocate() }

    /// True once the consumer has stopped: the producer ends at its next slot.
    public var isStopped: Bool { stopped.withLock { $0 } }

    /// Runs `produce` on a new thread named `name`: it fills the slot it is given (an index below
    /// `depth`) and returns true, or returns false when it has no more. Calls `consume` here with
    /// each filled slot, in order, until then. Slots go back to the producer `release` at a time:
    /// a producer waiting for room is woken once for several slots (each wake-up is a system call
    /// on the consumer's thread). The producer always has room or slots to hand over, so neither
    /// side waits for the other forever.
    public func run(_ name: String, stackSize: Int = 1 << 20, release: Int = 1,
                    produce: @escaping @Sendable (Int) -> Bool, consume: (Int) throws -> Void) throws {
        BlockingWork.start(name, stackSize: stackSize) { [self] in
            var index = 0
            while true {
                free.wait()
                if isStopped { break }
                let more = produce(index)
                last[index] = !more
                filled.signal()
                if !more { break }
                index = (index + 1) % depth
            }
            finished.signal()
        }
        defer {
            stopped.withLock { $0 = true }
            for _ in 0..<depth { free.signal() }
            finished.wait()
        }
        let batch = min(max(1, release), depth)
        var consumed = 0
        var index = 0
        while true {
            filled.wait()
            if last[index] { break }
            try consume(index)
            consumed += 1
            if consumed == batch {
                for _ in 0..<consumed { free.signal() }
                consumed = 0
            }
            index = (index + 1) % depth
        }
    }
}
