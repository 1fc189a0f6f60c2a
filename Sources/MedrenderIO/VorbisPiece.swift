import CVorbis
import Foundation
import Synchronization

/// A packet of a piece, placed in the whole stream.
struct VorbisPiecePacket: Sendable {
    var bytes: [UInt8]
    /// The frame at its block's centre in the whole stream (the end of the stream for the last).
    var granulePosition: Int64
    var shape: VorbisBlockShape
    var endsStream: Bool
}

/// What the pieces of one stream share: the buffers that carry the audio handed to them, whose
/// number bounds it (the stream waits for a free one), and a count of the samples handed over and
/// not yet encoded.
final class PieceAudio: Sendable {
    /// The frames a buffer holds at most.
    let bufferFrames: Int
    /// Buffers free to carry audio: the stream takes one (waiting while every one is held by a
    /// piece), and a piece puts it back once its audio is encoded or dropped. Its buffers keep
    /// their memory from one use to the next.
    private let free: HandOffQueue<[Int16]>
    /// Samples handed to the pieces and not yet encoded (or dropped).
    let queued = Atomic<Int>(0)

    init(samples: Int, bufferFrames: Int, channels: Int) {
        self.bufferFrames = bufferFrames
        let count = max(2, (samples + bufferFrames * channels - 1) / (bufferFrames * channels))
        free = HandOffQueue(capacity: count)
        // Never stopped: `put` cannot throw.
        for _ in 0..<count { try? free.put([]) }
    }

    /// A free buffer, emptied; waits while none is.
    func take() -> [Int16] {
        var one: [[Int16]] = []
        // The queue never ends and is never stopped: `take` waits until a buffer is free.
        while one.isEmpty { _ = try? free.take(upTo: 1, into: &one) }
        var buffer = one[0]
        buffer.removeAll(keepingCapacity: true)
        return buffer
    }

    /// Puts a buffer back; `samples` of it were handed over and had not been encoded.
    func giveBack(_ buffer: [Int16], samples: Int) {
        queued.wrappingSubtract(samples, ordering: .relaxed)
        try? free.put(buffer)
    }
}

/// What the stream tells a piece, in order.
enum PieceMessage: Sendable {
    /// Audio from the stream's frame `at` (the frame after the last handed), in a buffer of the
    /// stream's `PieceAudio`.
    case audio(at: Int, samples: [Int16])
    /// The encoder may be given audio up to this frame (never back).
    case release(Int)
    /// The piece's nominal boundary moved (no splice was found at the last one).
    case boundary(Int64)
    /// The piece's audio ends at `end`: its last kept block is centred on `keepThrough` (nil for
    /// the last piece, which ends the stream).
    case close(end: Int, keepThrough: Int64?)
}

/// One piece of a pieced Vorbis stream, encoded as its audio arrives: on a thread of its own, or
/// on the caller's when the stream has one thread.
///
/// Its encoder starts at `start` (the pre-roll's first frame) and is given the audio from there up
/// to a limit, which the stream moves on as it learns where the piece ends: while a splice is being
/// looked for, the piece is held a margin behind the audio received, so that it never sees a frame
/// past its end (the stream's bytes are those of an encoder given exactly its piece's audio). Its
/// packets are kept from the first block after `keepAfter` to the block centred on `keepThrough`,
/// both splices between two long blocks that this piece's encoder and its neighbour's place at
/// the same frames. Packets centred before the nominal boundary are kept whatever the splice, so
/// the stream writes them as they come.
///
/// The stream's messages reach the piece's thread through one `HandOffQueue` and its packets come
/// back through another; the piece's state is its thread's alone (a `Mutex` that only that
/// thread takes once the piece is launched).
final class PieceWorker: Sendable {
    let index: Int
    let start: Int
    let keepAfter: Int64?
    private let onThread: Bool
    private let state: Mutex<PieceState>
    /// The stream's messages, for the piece's thread (unused on the caller's).
    private let inbox = HandOffQueue<PieceMessage>(capacity: 1 << 16, wake: 1)
    /// The packets settled, a batch at a time; ends with the piece, with its failure if it failed.
    private let outbox: HandOffQueue<[VorbisPiecePacket]>
    /// Set when the stream is abandoned: the piece encodes nothing more.
    private let cancelled = Atomic<Bool>(false)

    /// Why a cancelled piece's messages end.
    private struct Cancelled: Error {}

    init(index: Int, start: Int, keepAfter: Int64?, boundary: Int, channels: Int, rate: Int, quality: Double, shared: PieceAudio,
         onThread: Bool) throws(IOError) {
        self.index = index
        self.start = start
        self.keepAfter = keepAfter
        self.onThread = onThread
        let analysis = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        let outbox = HandOffQueue<[VorbisPiecePacket]>(capacity: Int.max)
        self.outbox = outbox
        state = Mutex(PieceState(index: index, start: start, keepAfter: keepAfter, boundary: Int64(boundary), channels: channels,
                                 analysis: analysis, shared: shared, outbox: outbox))
    }

    /// Encodes the piece's first frames on the caller's thread, before the piece is launched: the
    /// interleaved frames of `audio`, which start at the piece's `start`, until its
    /// encoder has placed a block centred at or after `through`. Gives the shapes of the blocks it
    /// placed, centred in the stream's frames: the stream tries the piece's start on them, and
    /// when the start meets its splice this encoder goes on from there (from `nextFrame`), its
    /// pre-roll coded once.
    func lead(_ audio: UnsafeBufferPointer<Int16>, through: Int64) throws(IOError) -> [VorbisBlockShape] {
        // A copy (about a second of audio, once a piece): the state behind the lock takes none of
        // the caller's memory.
        let samples = Array(audio)
        return try state.withLock { (piece) throws(IOError) in
            try samples.withUnsafeBufferPointer { (p) throws(IOError) in try piece.lead(p, through: through) }
        }
    }

    /// The stream's frame the audio handed to the piece next starts at (before it is launched).
    var nextFrame: Int { state.withLock { $0.handedThrough } }

    /// With more than one thread, encodes the piece on a thread of its own (`BlockingWork`: a piece
    /// waits for its audio, which would park a Dispatch worker).
    func launch() {
        guard onThread else { return }
        BlockingWork.start("medrender vorbis piece") { [self] in run() }
    }

    /// Lets the encoder go up to frame `frame` (never back).
    func release(through frame: Int) { send(.release(frame)) }

    /// Where the piece's nominal boundary moved to (no splice was found at the last one).
    func moveBoundary(to frame: Int) { send(.boundary(Int64(frame))) }

    /// The piece's audio ends at `end`: its last kept block is centred on `keepThrough` (nil for
    /// the last piece, which ends the stream). Nothing is sent to it after.
    func close(end: Int, keepThrough: Int64?) {
        send(.close(end: end, keepThrough: keepThrough))
        if onThread { inbox.finish() }
    }

    /// Stops the piece: it encodes nothing more, and ends once it has put back its buffers.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        if onThread {
            inbox.finish(Cancelled())
        } else {
            state.withLock { $0.finish(stopped: true) }
        }
    }

    /// Waits until the piece has ended (its packets are dropped).
    func waitUntilFinished() {
        var rest: [[VorbisPiecePacket]] = []
        while (try? outbox.take(upTo: .max, into: &rest)) == true { rest.removeAll() }
    }

    /// Tells the piece `message`: on its thread, through its inbox; on the caller's, at once.
    func send(_ message: PieceMessage) {
        if onThread {
            // The piece's thread never stops its inbox: `put` cannot throw.
            try? inbox.put(message)
        } else {
            let cancelled = cancelled.load(ordering: .relaxed)
            state.withLock { $0.receive([message], cancelled: cancelled) }
        }
    }

    /// The piece's thread: takes the stream's messages as they come and encodes what they allow,
    /// until the piece is closed and all of it encoded, or cancelled.
    private func run() {
        var messages: [PieceMessage] = []
        while true {
            let more: Bool
            do { more = try inbox.take(upTo: 256, into: &messages) } catch { more = false }
            let cancelled = cancelled.load(ordering: .relaxed)
            let ended = state.withLock { (piece) -> Bool in
                piece.receive(messages, cancelled: cancelled)
                if !more, !piece.isFinished { piece.finish(stopped: true) }
                return piece.isFinished
            }
            messages.removeAll(keepingCapacity: true)
            if ended {
                // What is still sent (a cancelled piece's last messages) only gives buffers back.
                while more, (try? inbox.take(upTo: 256, into: &messages)) == true {
                    state.withLock { $0.receive(messages, cancelled: true) }
                    messages.removeAll(keepingCapacity: true)
                }
                return
            }
        }
    }

    /// The packets the stream may write now, in order, and whether the piece is finished (with
    /// its failure, if it failed). With `wait`, waits until there is a packet or the piece is
    /// finished.
    func takePackets(wait: Bool) -> (packets: [VorbisPiecePacket], finished: Bool, failure: IOError?) {
        var batches: [[VorbisPiecePacket]] = []
        do {
            let open = wait ? try outbox.take(upTo: .max, into: &batches) : try outbox.drain(into: &batches)
            return (Array(batches.joined()), !open, nil)
        } catch {
            let failure = error as? IOError ?? IOError(.library, "the Vorbis piece \(index) failed", cause: "\(error)")
            return (Array(batches.joined()), true, failure)
        }
    }
}

/// A piece's encoder and what the stream has told it: touched by one thread at a time (the
/// stream's until the piece is launched, then the piece's own).
struct PieceState {
    let index: Int
    let start: Int
    let keepAfter: Int64?
    let channels: Int
    let analysis: VorbisAnalysis
    let shared: PieceAudio
    let outbox: HandOffQueue<[VorbisPiecePacket]>

    /// The audio handed over and not yet encoded: chunks in order, the first from `taken` on.
    private var chunks: [(start: Int, audio: [Int16])] = []
    /// The frame of the stream the encoder has been given audio up to.
    private var taken: Int
    /// The frame the encoder may be given audio up to.
    private var limit: Int
    /// Packets centred before this frame are kept whatever the splice.
    private var boundary: Int64
    private var keepThrough: Int64?
    private var closed = false
    private var last = false
    /// Packets coded and not yet settled (centred at or after the boundary while the piece is open).
    private var packets: [VorbisPiecePacket] = []
    private var failure: IOError?
    private(set) var isFinished = false
    /// The block centred on `keepThrough` is coded: the rest of the audio is not needed.
    private var done = false
    /// The first and last packets settled, for the splices' check.
    private var firstSettled: VorbisPiecePacket?
    private var lastSettled: VorbisPiecePacket?

    init(index: Int, start: Int, keepAfter: Int64?, boundary: Int64, channels: Int, analysis: VorbisAnalysis, shared: PieceAudio,
         outbox: HandOffQueue<[VorbisPiecePacket]>) {
        self.index = index
        self.start = start
        self.keepAfter = keepAfter
        self.boundary = boundary
        self.channels = channels
        self.analysis = analysis
        self.shared = shared
        self.outbox = outbox
        taken = start
        limit = start
    }

    /// `PieceWorker.lead`.
    mutating func lead(_ audio: UnsafeBufferPointer<Int16>, through: Int64) throws(IOError) -> [VorbisBlockShape] {
        precondition(taken == start && chunks.isEmpty && packets.isEmpty, "a piece led after it was given audio")
        var coded: [VorbisPiecePacket] = []
        let frameCount = audio.count / channels
        guard let base = audio.baseAddress, frameCount > 0 else { return [] }
        let placed = try analysis.place(base, frameCount: frameCount, offset: start, through: through) { (shape) throws(IOError) in
            try take(shape, keepThrough: nil, into: &coded)
        }
        taken = start + placed.frames
        limit = taken
        packets = coded
        return placed.shapes
    }

    /// The stream's frame the audio handed next starts at.
    var handedThrough: Int { chunks.last.map { $0.start + $0.audio.count / channels } ?? taken }

    /// Takes the stream's messages in order, encodes what they allow and settles the packets; a
    /// piece closed and all encoded finishes. A finished or cancelled piece only gives the audio back.
    mutating func receive(_ messages: [PieceMessage], cancelled: Bool) {
        for message in messages {
            switch message {
            case .audio(let at, let samples):
                guard !isFinished, !cancelled, failure == nil else {
                    shared.giveBack(samples, samples: samples.count)
                    continue
                }
                precondition(at == handedThrough, "a piece was handed audio out of order")
                chunks.append((at, samples))
            case .release(let frame):
                limit = max(limit, frame)
            case .boundary(let frame):
                boundary = frame
            case .close(let end, let keepThrough):
                close(end: end, keepThrough: keepThrough)
            }
        }
        guard !isFinished else { return }
        if cancelled || failure != nil {
            finish(stopped: true)
            return
        }
        encode()
        if failure != nil {
            finish(stopped: true)
            return
        }
        settle()
        if closed, taken >= limit { finish(stopped: false) }
    }

    private mutating func close(end: Int, keepThrough: Int64?) {
        closed = true
        self.keepThrough = keepThrough
        last = keepThrough == nil
        limit = end
        // Audio handed past the end, which the stream could not yet know of when it handed it
        // (the scout finds a splice a little after the audio passed it); never encoded.
        while let (chunkStart, samples) = chunks.last.map({ ($0.start, $0.audio.count) }), chunkStart + samples / channels > end {
            let over = chunkStart + samples / channels - max(end, chunkStart)
            if chunkStart >= end {
                let dropped = chunks.removeLast()
                shared.giveBack(dropped.audio, samples: dropped.audio.count)
            } else {
                chunks[chunks.count - 1].audio.removeLast(over * channels)
                shared.queued.wrappingSubtract(over * channels, ordering: .relaxed)
            }
        }
        if let keepThrough { packets.removeAll { $0.shape.center > keepThrough } }
    }

    /// Encodes the audio handed over, up to the limit; each buffer goes back once encoded.
    private mutating func encode() {
        while failure == nil {
            while let first = chunks.first, taken >= first.start + first.audio.count / channels {
                chunks.removeFirst()
                shared.giveBack(first.audio, samples: first.audio.count)
            }
            guard let first = chunks.first else { return }
            let end = min(first.start + first.audio.count / channels, limit)
            guard end > taken else { return }
            let from = taken - first.start, frames = end - taken
            var coded: [VorbisPiecePacket] = []
            if !done {
                do {
                    try first.audio.withUnsafeBufferPointer { (p) throws(IOError) in
                        try analysis.write(p.baseAddress! + from * channels, frameCount: frames) { (shape) throws(IOError) in
                            try take(shape, keepThrough: keepThrough, into: &coded)
                        }
                    }
                } catch let thrown { failure = thrown }
            }
            taken += frames
            packets.append(contentsOf: coded)
        }
    }

    /// Hands the packets that are settled to the stream: those centred before the boundary, and
    /// every one once the piece is closed.
    private mutating func settle() {
        let horizon = closed ? Int64.max : boundary
        let ready = packets.prefix { $0.shape.center < horizon }.count
        guard ready > 0 else { return }
        let out = Array(packets.prefix(ready))
        packets.removeFirst(ready)
        if firstSettled == nil { firstSettled = out.first }
        lastSettled = out.last
        // Never stopped, and without bound: `put` neither waits nor throws.
        try? outbox.put(out)
    }

    /// Codes one block: the pre-roll's are coded only so the encoder's state is a continuous
    /// one's; the rest are kept, up to the one centred on `keepThrough`.
    private mutating func take(_ shape: VorbisBlockShape, keepThrough: Int64?, into coded: inout [VorbisPiecePacket]) throws(IOError) {
        guard !done else { return }
        let offset = Int64(start)
        let center = shape.center + offset
        if let keepAfter, center <= keepAfter {
            try analysis.code { _ throws(IOError) in }
            return
        }
        try analysis.code { (packet) throws(IOError) in
            var placed = shape
            placed.center = center
            coded.append(VorbisPiecePacket(bytes: Array(UnsafeBufferPointer(start: packet.packet, count: packet.bytes)),
                                           granulePosition: packet.granulepos + offset, shape: placed, endsStream: packet.e_o_s != 0))
        }
        if let keepThrough, center >= keepThrough { done = true }
    }

    /// Ends the encoder (the last piece's), checks the splices, gives back the audio not encoded
    /// and ends the packets, with the failure if there is one.
    mutating func finish(stopped: Bool) {
        guard !isFinished else { return }
        isFinished = true
        if !stopped, failure == nil, last {
            var coded: [VorbisPiecePacket] = []
            do { try analysis.end { (shape) throws(IOError) in try take(shape, keepThrough: nil, into: &coded) } } catch let thrown { failure = thrown }
            packets.append(contentsOf: coded)
        }
        if !stopped, failure == nil {
            settle()
            checkSplices()
        }
        for chunk in chunks { shared.giveBack(chunk.audio, samples: chunk.audio.count) }
        chunks.removeAll()
        outbox.finish(stopped && failure == nil ? IOError(.library, "the Vorbis piece \(index) was stopped") : failure)
    }

    /// The splices: long blocks on both sides, where the plan put them.
    private mutating func checkSplices() {
        if let keepAfter {
            let meets = firstSettled.map { $0.shape.long && $0.shape.previousLong && $0.shape.center == keepAfter + Int64(analysis.longBlock / 2) }
            if meets != true { failure = IOError(.library, "the Vorbis piece \(index) does not start on its splice at frame \(keepAfter)") }
        }
        if failure == nil, let keepThrough {
            let meets = lastSettled.map { $0.shape.long && $0.shape.nextLong && $0.shape.center == keepThrough }
            if meets != true { failure = IOError(.library, "the Vorbis piece \(index) does not end on its splice at frame \(keepThrough)") }
        }
    }
}

/// Writes Vorbis packets into Ogg pages: one logical stream with a fixed serial, pages made as
/// libogg makes them for one encoder.
///
/// The corresponding C functions are `ogg_stream_packetin`, `ogg_stream_pageout` and
/// `ogg_stream_flush`. Not `Sendable`.
final class OggPacketWriter {
    private let stream = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private var started = false
    private let sink: ByteSink
    private var packetNumber: Int64 = 0

    init(sink: ByteSink, serial: Int32) throws(IOError) {
        self.sink = sink
        guard ogg_stream_init(stream, serial) == 0 else {
            stream.deallocate()
            throw IOError(.library, "the Ogg stream would not start")
        }
        started = true
    }

    deinit {
        if started { ogg_stream_clear(stream) }
        stream.deallocate()
    }

    /// Adds the three header packets and writes them on pages of their own, as libvorbis's
    /// examples and `VorbisEncoder` do.
    func writeHeaders(_ headers: [VorbisPacket]) throws(IOError) {
        for header in headers { try add(header.bytes, granulePosition: header.granulePosition, beginsStream: header.beginsStream, endsStream: false) }
        try flush()
    }

    /// Adds one packet, numbered after the one before, and writes the pages it completes.
    /// Returns the packet as the stream carries it.
    ///
    /// The last packet goes on a page of its own. A player that cannot seek in the stream
    /// (GStreamer over HTTP) stops reading its length 8 KiB before the end, at the page before the
    /// last: with the last page holding one packet, what it reads is within one block of the
    /// stream's length, however much audio 8 KiB holds at a low rate.
    @discardableResult
    func add(_ bytes: [UInt8], granulePosition: Int64, beginsStream: Bool = false, endsStream: Bool) throws(IOError) -> VorbisPacket {
        if endsStream, packetNumber > 3 { try flush() }
        let number = packetNumber
        packetNumber += 1
        // libogg copies the bytes onto its pages and never writes through the pointer: the
        // packet's own bytes are handed over, not a copy of them (an allocation a packet).
        let code = bytes.withUnsafeBufferPointer { p in
            var packet = ogg_packet(packet: p.baseAddress.map(UnsafeMutablePointer.init(mutating:)), bytes: p.count,
                                    b_o_s: beginsStream ? 1 : 0, e_o_s: endsStream ? 1 : 0, granulepos: granulePosition, packetno: number)
            return ogg_stream_packetin(stream, &packet)
        }
        guard code == 0 else { throw IOError(.library, "the Ogg stream refused a packet") }
        var page = ogg_page()
        while ogg_stream_pageout(stream, &page) != 0 { try write(page) }
        var packet = VorbisPacket(ogg_packet())
        packet.bytes = bytes
        packet.granulePosition = granulePosition
        packet.packetNumber = number
        packet.beginsStream = beginsStream
        packet.endsStream = endsStream
        return packet
    }

    /// Writes what is left on pages.
    func flush() throws(IOError) {
        var page = ogg_page()
        while ogg_stream_flush(stream, &page) != 0 { try write(page) }
    }

    private func write(_ page: ogg_page) throws(IOError) {
        try sink.write(UnsafeRawBufferPointer(start: page.header, count: page.header_len))
        try sink.write(UnsafeRawBufferPointer(start: page.body, count: page.body_len))
    }
}
