import Foundation
import MedrenderIO

/// A value handed between threads whose use the code around it orders: one owner at a time (a
/// producer and the consumer it hands to through `BlockPipeline`'s semaphores, a part of pass 1
/// and the thread that joins it). The compiler cannot see that order, hence `@unchecked`.
final class Handoff<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs a producer of blocks on its own thread, feeding a consumer on the calling thread through a
/// bounded ring of buffers: pass 2's mixing and limiting ride on one core while the encoder runs
/// on the other. The order of blocks, and so the output, is the same as running both in turn.
///
/// The ring is raw memory allocated once; the semaphores hand each slot from one thread to the
/// other, so no Swift collection is shared between them.
// `@unchecked`: the ring is raw memory whose slots the semaphores hand from one thread to the
// other, one owner at a time; the cancel flag is read and written under `stateLock`.
final class BlockPipeline: @unchecked Sendable {
    /// One slot of the ring, as the producer fills it and the consumer reads it.
    struct Block {
        /// `samplesPerBlock` samples.
        var samples: UnsafeMutablePointer<Float>
        /// Frames to hand on, from `offset` (in frames).
        var offset = 0
        var frames = 0
    }

    private let depth: Int
    private let samplesPerBlock: Int
    private let storage: UnsafeMutablePointer<Float>
    private let offsets: UnsafeMutablePointer<Int>
    private let counts: UnsafeMutablePointer<Int>
    // Every semaphore starts at 0 (libdispatch traps on releasing one below its starting value,
    // which a stopped pipeline may leave).
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stateLock = NSLock()
    private var cancelled = false

    init(depth: Int, samplesPerBlock: Int) {
        self.depth = depth
        self.samplesPerBlock = samplesPerBlock
        storage = .allocate(capacity: depth * samplesPerBlock)
        storage.initialize(repeating: 0, count: depth * samplesPerBlock)
        offsets = .allocate(capacity: depth)
        offsets.initialize(repeating: 0, count: depth)
        counts = .allocate(capacity: depth)
        counts.initialize(repeating: 0, count: depth)
        for _ in 0..<depth { free.signal() }
    }

    deinit {
        storage.deallocate()
        offsets.deallocate()
        counts.deallocate()
    }

    private var isCancelled: Bool { stateLock.withLock { cancelled } }

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
        BlockingWork.start("medrender pass", stackSize: 1 << 20) { [self] in
            var index = 0
            while true {
                free.wait()
                if isCancelled { break }
                var block = Block(samples: storage + index * samplesPerBlock)
                let more = produce(&block)
                offsets[index] = block.offset
                counts[index] = more ? block.frames : -1
                filled.signal()
                if !more { break }
                index = (index + 1) % depth
            }
            finished.signal()
        }
        defer {
            stateLock.withLock { cancelled = true }
            for _ in 0..<depth { free.signal() }
            finished.wait()
        }
        // Slots go back to the producer half a ring at a time: a producer waiting for room is then
        // woken once for several blocks, not once a block (each wake-up is a system call on this,
        // the encoder's, thread). The producer always has room or blocks to hand over, so neither
        // side waits for the other forever.
        let release = max(1, depth / 2)
        var consumed = 0
        var index = 0
        while true {
            filled.wait()
            let frames = counts[index]
            if frames < 0 { break }
            try consume(Block(samples: storage + index * samplesPerBlock, offset: offsets[index], frames: frames))
            consumed += 1
            if consumed == release {
                for _ in 0..<consumed { free.signal() }
                consumed = 0
            }
            index = (index + 1) % depth
        }
    }
}
