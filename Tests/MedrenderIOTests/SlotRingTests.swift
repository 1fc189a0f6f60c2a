import Foundation
import MedrenderIO
import Synchronization
import Testing

/// The ring of slots between a producing thread and the calling one: every slot read in the order
/// it was filled, no slot filled again before it was read, and a consumer that throws stops the
/// producer, which has ended when `run` returns.
@Suite struct SlotRingTests {
    struct Stop: Error {}

    /// Each slot's content (what the producer wrote in it) and whether it waits to be read.
    final class Slots: Sendable {
        let value = Mutex([Int](repeating: -1, count: 8))
        let unread = Mutex([Bool](repeating: false, count: 8))
        let produced = Atomic(0)
        let producing = Atomic(false)
    }

    @Test(arguments: [1, 2, 4])
    func everySlotIsReadInTheOrderItWasFilledAndNeverOverwrittenUnread(release: Int) throws {
        let ring = SlotRing(depth: 4)
        let slots = Slots()
        let count = 3_000
        var got: [Int] = []
        try ring.run("slot ring test", release: release, produce: { slot in
            let n = slots.produced.load(ordering: .sequentiallyConsistent)
            guard n < count else { return false }
            let wasUnread = slots.unread.withLock { unread in defer { unread[slot] = true }; return unread[slot] }
            precondition(!wasUnread, "slot \(slot) filled again before it was read")
            slots.value.withLock { $0[slot] = n }
            slots.produced.add(1, ordering: .sequentiallyConsistent)
            return true
        }, consume: { slot in
            #expect(slots.unread.withLock { unread in defer { unread[slot] = false }; return unread[slot] }, "slot \(slot) read twice")
            got.append(slots.value.withLock { $0[slot] })
        })
        #expect(got == Array(0..<count))
    }

    @Test func aConsumerThatThrowsStopsTheProducerBeforeRunReturns() throws {
        let ring = SlotRing(depth: 4)
        let slots = Slots()
        var read = 0
        #expect(throws: Stop.self) {
            try ring.run("slot ring test", release: 2, produce: { _ in
                slots.producing.store(true, ordering: .sequentiallyConsistent)
                defer { slots.producing.store(false, ordering: .sequentiallyConsistent) }
                slots.produced.add(1, ordering: .sequentiallyConsistent)
                return true  // an endless producer: only the consumer's stop ends it
            }, consume: { _ in
                read += 1
                if read == 10 { throw Stop() }
            })
        }
        let stillProducing = slots.producing.load(ordering: .sequentiallyConsistent)
        #expect(!stillProducing, "the producer was still filling a slot after run returned")
        let produced = slots.produced.load(ordering: .sequentiallyConsistent)
        #expect(produced >= 10 && produced <= 10 + 4, "\(produced) slots filled for 10 read with 4 slots")
        // Nothing is produced after run returned.
        let producedAfter = slots.produced.load(ordering: .sequentiallyConsistent)
        #expect(producedAfter == produced)
    }
}
