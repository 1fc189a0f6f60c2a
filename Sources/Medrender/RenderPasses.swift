import Foundation
import MedrenderCore
import MedrenderIO

/// A value handed between threads whose use the code around it orders (one owner at a time).
final class Handoff<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

extension Renderer {
    /// Pass 1 is split into this many parts, always: the split, and so the measured loudness and
    /// the output's bytes, never depend on the machine's cores.
    static let measureParts = 4

    /// Pass 1: the integrated loudness of the mix as it will be, before the gain, measured in
    /// parts that are combined by their gating blocks. The parts go two by two, each pair on one
    /// thread with its two streams' loudness filters side by side (`LoudnessGate.add(_:_:_:_:)`,
    /// twice the work per cycle), the pairs side by side when `parallel`, one after the other
    /// otherwise; the result is the same.
    static func measureLoudness(plan: RenderPlan, assets: MixAssets, parallel: Bool = true,
                                progress: ((RenderProgress) -> Void)?) throws -> Double {
        let total = plan.totalFrames
        // Parts start on whole seconds, so the meter's 100-ms blocks fall the same way in each.
        let rate = Int64(plan.rate)
        var bounds: [Int64] = [0]
        for k in 1..<measureParts {
            let b = total * Int64(k) / Int64(measureParts) / rate * rate
            if b > bounds.last! { bounds.append(b) }
        }
        bounds.append(total)
        let cuts = bounds
        let parts = cuts.count - 1
        let report = Handoff(progress)
        // LoudnessGate measures as libebur128 does (BS.1770), several times faster.
        let meters = Handoff<[LoudnessGate]>([])
        for _ in 0..<parts { meters.value.append(LoudnessGate(channels: plan.channels, rate: plan.rate)) }
        let failure = Handoff<(any Error)?>(nil)
        let done = Handoff<[Int64]>(Array(repeating: 0, count: parts))
        let lock = NSLock()
        let fades = MasterFades(plan: plan)
        let pairs = (parts + 1) / 2
        let measurePair: @Sendable (Int) -> Void = { pair in
            let members = Array((pair * 2)..<min(parts, pair * 2 + 2))
            let gates = lock.withLock { members.map { meters.value[$0] } }
            let mixers = members.map { Mixer(plan: plan, assets: assets, startFrame: cuts[$0]) }
            var buffers = members.map { _ in [Float](repeating: 0, count: blockFrames * plan.channels) }
            var at = members.map { cuts[$0] }
            let ends = members.map { cuts[$0 + 1] }
            var counts = [Int](repeating: 0, count: members.count)  // filled in place: nothing allocated per block
            while zip(at, ends).contains(where: { $0 < $1 }) {
                for k in members.indices { counts[k] = Int(min(Int64(blockFrames), ends[k] - at[k])) }
                for k in members.indices where counts[k] > 0 {
                    buffers[k].withUnsafeMutableBufferPointer { p in
                        mixers[k].render(into: p.baseAddress!, frameCount: counts[k])
                        fades.apply(p.baseAddress!, channels: plan.channels, startFrame: at[k], frameCount: counts[k])
                    }
                }
                if members.count == 2, plan.channels == 2, counts[0] == counts[1] {
                    buffers[0].withUnsafeBufferPointer { a in
                        buffers[1].withUnsafeBufferPointer { b in
                            LoudnessGate.add(gates[0], a.baseAddress!, gates[1], b.baseAddress!, frameCount: counts[0])
                        }
                    }
                } else {
                    for k in members.indices where counts[k] > 0 {
                        buffers[k].withUnsafeBufferPointer { gates[k].add($0.baseAddress!, frameCount: counts[k]) }
                    }
                }
                for k in members.indices { at[k] += Int64(counts[k]) }
                let sum = lock.withLock { () -> Int64 in
                    for (k, part) in members.enumerated() { done.value[part] = at[k] - cuts[part] }
                    return done.value.reduce(0, +)
                }
                // Side by side, only the first pair reports, so the callback is never run on two
                // threads at once.
                if pair == 0 || !parallel { report.value?(RenderProgress(pass: 1, framesDone: sum, totalFrames: total)) }
            }
        }
        if parallel {
            DispatchQueue.concurrentPerform(iterations: pairs, execute: measurePair)
        } else {
            for pair in 0..<pairs { measurePair(pair) }
        }
        if let error = failure.value { throw error }
        return LoudnessGate.integratedLoudness(of: meters.value)
    }
}

/// Runs a producer of blocks on its own thread, feeding a consumer on the calling thread through a
/// bounded ring of buffers: pass 2's mixing and limiting ride on one core while the encoder runs
/// on the other. The order of blocks, and so the output, is the same as running both in turn.
///
/// The ring is raw memory allocated once; the semaphores hand each slot from one thread to the
/// other, so no Swift collection is shared between them.
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
        let thread = Thread { [self] in
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
        thread.stackSize = 1 << 20
        thread.start()
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
