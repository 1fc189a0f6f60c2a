import Foundation
import MedrenderIO

/// A value handed between threads whose use the code around it orders: one owner at a time (a
/// producer and the consumer it hands to through a `SlotRing`, a part of pass 1
/// and the thread that joins it). The compiler cannot see that order, hence `@unchecked`.
final class Handoff<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs a producer of blocks on its own thread, feeding a consumer on the calling thread through a
/// ring of buffers (`SlotRing`): pass 2's mixing and limiting ride on one core while the encoder
/// runs on the other. The order of blocks, and so the output, is the same as running both in turn.
// `@unchecked`: the buffers are raw memory allocated once, each slot's handed from one thread to
// the other by the ring, one owner at a time.
final class BlockPipeline: @unchecked Sendable {
    /// One slot of the ring, as the producer fills it and the consumer reads it.
    struct Block {
        /// `samplesPerBlock` samples.
        var samples: UnsafeMutablePointer<Float>
        /// Frames to hand on, from `offset` (in frames).
        var offset = 0
        var frames = 0
    }

    private let ring: SlotRing
    private let samplesPerBlock: Int
    private let storage: UnsafeMutablePointer<Float>
    private let offsets: UnsafeMutablePointer<Int>
    private let counts: UnsafeMutablePointer<Int>

    init(depth: Int, samplesPerBlock: Int) {
        ring = SlotRing(depth: depth)
        self.samplesPerBlock = samplesPerBlock
        storage = .allocate(capacity: depth * samplesPerBlock)
        storage.initialize(repeating: 0, count: depth * samplesPerBlock)
        offsets = .allocate(capacity: depth)
        offsets.initialize(repeating: 0, count: depth)
        counts = .allocate(capacity: depth)
        counts.initialize(repeating: 0, count: depth)
    }

    deinit {
        storage.deallocate()
        offsets.deallocate()
        counts.deallocate()
    }

    /// Runs `produce` on a new thread (or, unless `onOwnThread`, here in turn with `consume`): it
    /// fills block after block and returns false when done. Calls `consume` here for each block,
    /// in order, until the producer is done; if `consume` throws, the producer is stopped and
    /// joined before the error goes on.
    func run(onOwnThread: Bool = true, produce: @escaping @Sendable (inout Block) -> Bool,
             consume: (Block) throws -> Void) throws {
        if !onOwnThread {
            var block = Block(samples: storage)
            while produce(&block) { try consume(block) }
            return
        }
        // Slots go back to the producer half a ring at a time.
        try ring.run("medrender pass", release: ring.depth / 2, produce: { [self] index in
            var block = Block(samples: storage + index * samplesPerBlock)
            guard produce(&block) else { return false }
            offsets[index] = block.offset
            counts[index] = block.frames
            return true
        }, consume: { index in
            try consume(Block(samples: storage + index * samplesPerBlock, offset: offsets[index], frames: counts[index]))
        })
    }
}
