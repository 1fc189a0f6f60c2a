import Foundation
import MedrenderIO
import Synchronization
import Testing

/// The hand-off between a producing thread and its consumer: order kept, memory bounded, and either
/// side able to end it.
@Suite struct HandOffQueueTests {
    struct Stop: Error, Equatable { var reason: String }

    /// The most values ever waiting, as the producer saw them (it counts what it put minus what
    /// the consumer reported taken).
    final class Counts: Sendable {
        let put = Atomic(0)
        let taken = Atomic(0)
        let mostWaiting = Atomic(0)
    }

    @Test(arguments: [1, 7, 64])
    func aThreadConsumerTakesEveryValueInOrderAndThePutsWaitForRoom(wake: Int) throws {
        let queue = HandOffQueue<Int>(capacity: 64, wake: wake)
        let counts = Counts()
        let count = 5_000
        Thread.detachNewThread {
            for i in 0..<count {
                try? queue.put(i)
                let waiting = counts.put.add(1, ordering: .sequentiallyConsistent).newValue
                    - counts.taken.load(ordering: .sequentiallyConsistent)
                counts.mostWaiting.max(waiting, ordering: .sequentiallyConsistent)
            }
            queue.finish()
        }
        var got: [Int] = []
        var batch: [Int] = []
        while try queue.take(upTo: 16, into: &batch) {
            #expect(batch.count <= 16)
            got += batch
            counts.taken.add(batch.count, ordering: .sequentiallyConsistent)
            batch.removeAll()
        }
        #expect(got == Array(0..<count))
        // A put returns only once its value is in the queue, which holds 64 at most; the consumer
        // may have taken up to one batch that it has not counted yet.
        #expect(counts.mostWaiting.load(ordering: .sequentiallyConsistent) <= 64 + 16)
    }

    @Test func theProducersErrorReachesTheConsumerAfterItsLastValue() throws {
        let queue = HandOffQueue<Int>(capacity: 8)
        try queue.put(1)
        try queue.put(2)
        queue.finish(Stop(reason: "producer"))
        var batch: [Int] = []
        #expect(try queue.take(upTo: 10, into: &batch))
        #expect(batch == [1, 2])
        #expect(throws: Stop(reason: "producer")) { _ = try queue.take(upTo: 10, into: &batch) }
    }

    @Test func aStoppedQueueFailsTheProducerWaitingForRoomWithTheConsumersReason() throws {
        let queue = HandOffQueue<Int>(capacity: 2)
        let failure = Mutex<Stop?>(nil)
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                // Puts until one waits for room, which the consumer never makes: it stops instead.
                var i = 0
                while true {
                    try queue.put(i)
                    i += 1
                }
            } catch let error as Stop {
                failure.withLock { $0 = error }
            } catch {}
            ended.signal()
        }
        var batch: [Int] = []
        #expect(try queue.take(upTo: 1, into: &batch))
        queue.stop(Stop(reason: "consumer"))
        ended.wait()
        // The producer either waited for room and was woken by the stop, or found the queue
        // stopped when it came to put: both end in the consumer's reason.
        #expect(failure.withLock { $0 } == Stop(reason: "consumer"))
        #expect(queue.isStopped)
        #expect(try !queue.take(upTo: 1, into: &batch))
    }

    @Test func aTaskReadsEveryValueThenTheEnd() async throws {
        let queue = HandOffQueue<[UInt8]>(capacity: 4)
        Thread.detachNewThread {
            for i in 0..<100 { try? queue.put([UInt8(i)]) }
            queue.finish()
        }
        var got: [UInt8] = []
        while let value = try await queue.next(cancelled: Stop(reason: "cancelled")) { got += value }
        #expect(got == (0..<100).map(UInt8.init))
    }

    @Test func aCancelledReaderStopsTheProducer() async throws {
        let queue = HandOffQueue<Int>(capacity: 4)
        let reader = Task { try await queue.next(cancelled: Stop(reason: "cancelled")) }
        reader.cancel()
        await #expect(throws: Stop(reason: "cancelled")) { _ = try await reader.value }
        #expect(throws: Stop(reason: "cancelled")) { try queue.put(1) }
    }
}
