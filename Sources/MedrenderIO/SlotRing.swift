/// The hand-off of memory allocated once between two threads: `depth` slots that a producer, on a
/// thread of its own, fills and a consumer, on the calling thread, reads in the order they were
/// filled. What a slot holds is its user's (pass 2's blocks of samples, the video's pictures, in
/// memory allocated once); the ring hands each slot's index from one thread to the other through
/// two `HandOffQueue`s (the slots free to fill, the slots filled), so no Swift collection of the
/// user's is shared between them and there is one hand-off type. A consumer that throws stops the
/// producer, and the producer has ended before `run` returns, however it ends. A ring runs once.
public final class SlotRing: Sendable {
    public let depth: Int

    /// Why the producer's wait for a free slot ends when the consumer stops.
    private struct Stopped: Error {}

    public init(depth: Int) {
        self.depth = max(1, depth)
    }

    /// Runs `produce` on a new thread named `name`: it fills the slot it is given (an index below
    /// `depth`) and returns true, or returns false when it has no more. Calls `consume` here with
    /// each filled slot, in order, until then. Slots go back to the producer as they are read, and
    /// a producer waiting for room is woken once `release` of them are free, not for each one
    /// (each wake-up is a system call on the consumer's thread). The producer always has room or
    /// slots to hand over, so neither side waits for the other forever.
    public func run(_ name: String, stackSize: Int = 1 << 20, release: Int = 1,
                    produce: @escaping @Sendable (Int) -> Bool, consume: (Int) throws -> Void) throws {
        let free = HandOffQueue<Int>(capacity: depth, wake: min(max(1, release), depth))
        let filled = HandOffQueue<Int>(capacity: depth)
        for index in 0..<depth { try free.put(index) }
        BlockingWork.start(name, stackSize: stackSize) { [depth] in
            var ready: [Int] = []
            ready.reserveCapacity(depth)
            filling: while (try? free.take(upTo: depth, into: &ready)) == true {
                for index in ready {
                    guard produce(index), (try? filled.put(index)) != nil else { break filling }
                }
                ready.removeAll(keepingCapacity: true)
            }
            filled.finish()
        }
        // The producer is stopped and its end awaited: after `finish` it touches no slot.
        defer {
            free.stop(Stopped())
            var rest: [Int] = []
            while (try? filled.take(upTo: depth, into: &rest)) == true { rest.removeAll(keepingCapacity: true) }
        }
        var batch: [Int] = []
        batch.reserveCapacity(depth)
        while try filled.take(upTo: depth, into: &batch) {
            for index in batch {
                try consume(index)
                try free.put(index)
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
