import Foundation
import Medrender
import MedrenderIO
import NIOCore
import Synchronization

/// One render under way, written at full speed into a file that its readers follow, each at its
/// own pace: a slow reader never holds a render place, and a second client for the same render
/// reads the same file instead of starting another. When the last reader leaves before the end,
/// the render is stopped.
final class RenderFlight: Sendable {
    enum State: Sendable {
        case running
        /// Complete: the file (the cache entry, or a spool file) and its length.
        case finished(path: String, length: Int64)
        /// Complete, but the disk filled up on the way: the start is in `writingPath` and the rest
        /// in memory, read through `read(_:at:count:)`.
        case finishedInMemory(length: Int64)
        case failed(any Error)
    }

    /// The most a render holds in memory once its file cannot grow (the disk filled up during
    /// it): a 15-minute OGG is about 10 MiB, a 15-minute 48 kHz WAV 330 MiB.
    static let memoryTailLimit = 512 << 20

    let key: String
    /// The file being written; readers open it once the first bytes are in.
    let writingPath: String
    /// True when the file is not a cache entry (the cache cannot take one): it is removed once
    /// the render and every reader are done.
    let spooled: Bool
    /// The render's descriptor of the file (-1 when none could be made).
    let writeDescriptor: Int32

    /// What changes as the render goes and its readers come and leave.
    private struct Shared {
        var written: Int64 = 0
        var state: State = .running
        var readers = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var stop: (@Sendable () -> Void)?
        /// The first bytes written (a WAV header tells the file's length).
        var head: [UInt8] = []
        /// Once the file could not take more: the bytes it holds, and the rest, held here.
        var fileBytes: Int64?
        var tail: [UInt8] = []
        var abandoned = false
        var allWritten = false

        var isRunning: Bool {
            if case .running = state { true } else { false }
        }

        /// The readers waiting, taken to be resumed once the lock is let go.
        mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { waiters = [] }
            return waiters
        }
    }
    private let shared = Mutex(Shared())

    init(key: String, writingPath: String, spooled: Bool, writeDescriptor: Int32) {
        self.key = key
        self.writingPath = writingPath
        self.spooled = spooled
        self.writeDescriptor = writeDescriptor
    }

    /// What stops the render when every reader has left.
    func onAbandon(_ stop: @escaping @Sendable () -> Void) { shared.withLock { $0.stop = stop } }

    /// True once every reader left before the render ended.
    var wasAbandoned: Bool { shared.withLock { $0.abandoned } }

    /// Wakes every waiting reader (one of them may have to leave).
    func wake() {
        for waiter in shared.withLock({ $0.takeWaiters() }) { waiter.resume() }
    }

    var snapshot: (written: Int64, state: State) { shared.withLock { ($0.written, $0.state) } }

    /// True once every byte is written and the render only puts its file in place (a flush, the
    /// cache): a reader that comes now waits the moment for the whole file and its length.
    var isWritten: Bool { shared.withLock { $0.allWritten } }

    /// The render's side: every byte is written.
    func wroteAll() { shared.withLock { $0.allWritten = true } }

    /// True once the file could not take more and the render goes on in memory.
    var isInMemory: Bool { shared.withLock { $0.fileBytes != nil } }

    /// The render's side: the file took `inFile` bytes in all and can take no more (its disk is
    /// full); `bytes`, the chunk being written, goes on in memory from there. False when memory
    /// cannot take the rest either (`memoryTailLimit`).
    func spill(_ bytes: [UInt8], inFile: Int64) -> Bool {
        shared.withLock {
            // `written` is what came before this chunk; the file took the start of it.
            let taken = Int(min(max(0, inFile - $0.written), Int64(bytes.count)))
            guard bytes.count - taken <= Self.memoryTailLimit else { return false }
            $0.fileBytes = $0.written + Int64(taken)
            $0.tail = Array(bytes[taken...])
            return true
        }
    }

    /// The render's side, in memory: `bytes` follow the tail. False past `memoryTailLimit`.
    func hold(_ bytes: [UInt8]) -> Bool {
        shared.withLock {
            guard $0.tail.count + bytes.count <= Self.memoryTailLimit else { return false }
            $0.tail += bytes
            return true
        }
    }

    /// Up to `count` bytes of the render at `offset`, from the file `fd` (opened on
    /// `writingPath`) or, past what the file took, from memory.
    func read(_ fd: Int32, at offset: Int64, count: Int) throws -> ByteBuffer {
        let (fromMemory, inFile) = shared.withLock { s -> (ByteBuffer?, Int64?) in
            guard let fileBytes = s.fileBytes, offset >= fileBytes else { return (nil, s.fileBytes) }
            let start = Int(offset - fileBytes), end = min(s.tail.count, start + count)
            return (start < end ? ByteBuffer(bytes: s.tail[start..<end]) : ByteBuffer(), fileBytes)
        }
        if let fromMemory {
            guard fromMemory.readableBytes > 0 else { throw RenderError("the render's file ended early", category: .io) }
            return fromMemory
        }
        return try MedrenderService.read(fd, at: offset, count: inFile.map { Int(min(Int64(count), $0 - offset)) } ?? count)
    }

    /// The render's side: `bytes` more are in the file (or held in memory).
    func advance(_ bytes: [UInt8]) {
        let resumed = shared.withLock { s in
            s.written += Int64(bytes.count)
            if s.head.count < 64 { s.head += bytes.prefix(64 - s.head.count) }
            return s.takeWaiters()
        }
        for waiter in resumed { waiter.resume() }
    }

    /// The render's side: it ended.
    func end(_ state: State) {
        let (resumed, orphaned) = shared.withLock { s in
            s.state = state
            return (s.takeWaiters(), s.readers == 0)
        }
        for waiter in resumed { waiter.resume() }
        if orphaned { removeSpool() }
    }

    /// Waits until more than `offset` bytes are written or the render has ended.
    func wait(beyond offset: Int64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = shared.withLock { s in
                let ready = s.written > offset || !s.isRunning
                if !ready { s.waiters.append(continuation) }
                return ready
            }
            if now { continuation.resume() }
        }
    }

    func addReader() { shared.withLock { $0.readers += 1 } }

    /// A reader is done; the last one to leave a running render stops it.
    func removeReader() {
        let (stopNow, removeFile) = shared.withLock { s -> ((@Sendable () -> Void)?, Bool) in
            s.readers -= 1
            guard s.readers == 0 else { return (nil, false) }
            if s.isRunning { s.abandoned = true }
            return s.isRunning ? (s.stop, false) : (nil, true)
        }
        stopNow?()
        if removeFile { removeSpool() }
    }

    private func removeSpool() {
        switch snapshot.state {
        case .finished(let path, _) where spooled: unlink(path)
        case .finishedInMemory: unlink(writingPath)
        default: break
        }
    }

    /// The whole file's length when the head says it in advance (a WAV's RIFF size, an RF64's
    /// `ds64` size), else nil.
    var announcedLength: Int64? {
        WaveSize.announcedLength(head: shared.withLock { $0.head })
    }
}

/// A client that has gone, as its request's watcher sees it.
final class Departure: Sendable {
    private let left = Mutex(false)
    func leave() { left.withLock { $0 = true } }
    var hasLeft: Bool { left.withLock { $0 } }
}
