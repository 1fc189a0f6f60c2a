import CVorbis
import Foundation

/// A packet of a piece, placed in the whole stream.
struct VorbisPiecePacket: Sendable {
    var bytes: [UInt8]
    /// The frame at its block's centre in the whole stream (the end of the stream for the last).
    var granulePosition: Int64
    var shape: VorbisBlockShape
    var endsStream: Bool
}

/// What the pieces of one stream share: a lock, and the audio handed to them and not yet encoded,
/// which the stream keeps under a bound by waiting.
// `@unchecked`: `queued` is read and written under `condition` only.
final class PieceQueue: @unchecked Sendable {
    let condition = NSCondition()
    /// Samples handed to the pieces' encoders and not yet encoded (or dropped).
    var queued = 0
    /// Buffers whose audio is encoded, kept for the audio handed over next: a block of audio
    /// handed to a piece would otherwise be an allocation.
    var spare: [[Int16]] = []

    func recycle(_ audio: [Int16]) {
        if spare.count < 16 { spare.append(audio) }
    }
}

/// One piece of a pieced Vorbis stream, encoded as its audio arrives: on a thread of its own, or
/// on the caller's when the stream has one thread.
///
/// Its encoder starts at `start` (the pre-roll's first frame) and is given the audio from there up
/// to `limit`, which the stream moves on as it learns where the piece ends: while a splice is being
/// looked for, the piece is held a margin behind the audio received, so that it never sees a frame
/// past its end (the stream's bytes are those of an encoder given exactly its piece's audio). Its
/// packets are kept from the first block after `keepAfter` to the block centred on `keepThrough`,
/// both splices between two long blocks that this piece's encoder and its neighbour's place at
/// the same frames. Packets centred before the nominal `boundary` are kept whatever the splice, so
/// the stream writes them as they come.
// `@unchecked`: every `var` below is read and written under `shared.condition` only, but
// `analysis` and `done`, which only the thread encoding the piece touches.
final class PieceWorker: @unchecked Sendable {
    let index: Int
    let start: Int
    let keepAfter: Int64?
    private let channels: Int
    private let shared: PieceQueue
    private let analysis: VorbisAnalysis
    private let onThread: Bool

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
    private var cancelled = false
    private var packets: [VorbisPiecePacket] = []
    private var failure: IOError?
    private(set) var finished = false
    /// The block centred on `keepThrough` is coded: the rest of the audio is not needed.
    private var done = false

    init(index: Int, start: Int, keepAfter: Int64?, boundary: Int, channels: Int, rate: Int, quality: Double, shared: PieceQueue,
         onThread: Bool) throws(IOError) {
        self.index = index
        self.start = start
        self.keepAfter = keepAfter
        self.channels = channels
        self.shared = shared
        self.onThread = onThread
        self.boundary = Int64(boundary)
        taken = start
        limit = start
        analysis = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
    }

    /// Encodes the piece's first frames on the caller's thread, before the piece is launched: the
    /// `frameCount` interleaved frames at `audio`, which start at the piece's `start`, until its
    /// encoder has placed a block centred at or after `through`. Gives the shapes of the blocks it
    /// placed, centred in the stream's frames: the stream tries the piece's start on them, and
    /// when the start meets its splice this encoder goes on from there (from `nextFrame`), its
    /// pre-roll coded once and no other encoder started for the try.
    func lead(_ audio: UnsafePointer<Int16>, frameCount: Int, through: Int64) throws(IOError) -> [VorbisBlockShape] {
        precondition(taken == start && chunks.isEmpty && packets.isEmpty, "a piece led after it was given audio")
        var coded: [VorbisPiecePacket] = []
        let placed = try analysis.place(audio, frameCount: frameCount, offset: start, through: through) { (shape) throws(IOError) in
            try take(shape, keepThrough: nil, into: &coded)
        }
        taken = start + placed.frames
        limit = taken
        packets = coded
        return placed.shapes
    }

    /// The stream's frame the audio handed to the piece next starts at.
    var nextFrame: Int {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return handedThrough
    }

    /// `nextFrame`, under `shared.condition`.
    private var handedThrough: Int { chunks.last.map { $0.start + $0.audio.count / channels } ?? taken }

    /// Hands over `frameCount` frames from the stream's frame `at` (the frame after the last handed).
    func push(_ frames: UnsafePointer<Int16>, frameCount: Int, at: Int) {
        guard frameCount > 0 else { return }
        shared.condition.lock()
        if cancelled || failure != nil {
            shared.condition.unlock()
            return
        }
        precondition(at == handedThrough, "a piece was handed audio out of order")
        var audio = shared.spare.popLast() ?? []
        audio.removeAll(keepingCapacity: true)
        audio.append(contentsOf: UnsafeBufferPointer(start: frames, count: frameCount * channels))
        chunks.append((at, audio))
        shared.queued += audio.count
        shared.condition.broadcast()
        shared.condition.unlock()
        if !onThread { work() }
    }

    /// Lets the encoder go up to frame `frame` (never back).
    func release(through frame: Int) {
        shared.condition.lock()
        if frame > limit {
            limit = frame
            shared.condition.broadcast()
        }
        shared.condition.unlock()
        if !onThread { work() }
    }

    /// Where the piece's nominal boundary moved to (no splice was found at the last one).
    func moveBoundary(to frame: Int) {
        shared.condition.lock()
        boundary = Int64(frame)
        shared.condition.unlock()
    }

    /// The piece's audio ends at `end`: its last kept block is centred on `keepThrough` (nil for
    /// the last piece, which ends the stream).
    func close(end: Int, keepThrough: Int64?) {
        shared.condition.lock()
        closed = true
        self.keepThrough = keepThrough
        last = keepThrough == nil
        limit = end
        // Audio handed past the end, which the stream could not yet know of when it handed it
        // (the scout finds a splice a little after the audio passed it); never encoded.
        while let (chunkStart, samples) = chunks.last.map({ ($0.start, $0.audio.count) }), chunkStart + samples / channels > end {
            let over = chunkStart + samples / channels - max(end, chunkStart)
            shared.queued -= over * channels
            if chunkStart >= end {
                chunks.removeLast()
            } else {
                chunks[chunks.count - 1].audio.removeLast(over * channels)
            }
        }
        if let keepThrough { packets.removeAll { $0.shape.center > keepThrough } }
        shared.condition.broadcast()
        shared.condition.unlock()
        if !onThread { work() }
    }

    /// Stops the piece: its thread ends without encoding the rest.
    func cancel() {
        shared.condition.lock()
        cancelled = true
        shared.condition.broadcast()
        shared.condition.unlock()
        if !onThread { work() }
    }

    /// Waits until the piece's encoder is done (or stopped).
    func waitUntilFinished() {
        shared.condition.lock()
        while !finished { shared.condition.wait() }
        shared.condition.unlock()
    }

    /// Encodes the audio that may be encoded; on the piece's thread, waits for more until the piece
    /// is closed and all of it encoded.
    func work() {
        while true {
            shared.condition.lock()
            // The chunks encoded by the last turn, dropped once nothing here holds them, so
            // their buffers are used again.
            var dropped = false
            while let first = chunks.first, taken >= first.start + first.audio.count / channels {
                chunks.removeFirst()
                shared.queued -= first.audio.count
                shared.recycle(first.audio)
                dropped = true
            }
            if dropped { shared.condition.broadcast() }
            var slice: (audio: [Int16], from: Int, frames: Int)?
            while !finished {
                if cancelled || failure != nil { break }
                if let first = chunks.first {
                    let end = min(first.start + first.audio.count / channels, limit)
                    if end > taken {
                        slice = (first.audio, taken - first.start, end - taken)
                        break
                    }
                }
                if closed, taken >= limit { break }
                if !onThread {
                    shared.condition.unlock()
                    return
                }
                shared.condition.wait()
            }
            if finished {
                shared.condition.unlock()
                return
            }
            guard let (audio, from, frames) = slice else {
                // Closed and all encoded, cancelled, or failed.
                let stopped = cancelled || failure != nil
                shared.condition.unlock()
                finish(stopped: stopped)
                return
            }
            let keepThrough = self.keepThrough
            shared.condition.unlock()
            var coded: [VorbisPiecePacket] = []
            var error: IOError?
            if !done {
                do {
                    try audio.withUnsafeBufferPointer { (p) throws(IOError) in
                        try analysis.write(p.baseAddress! + from * channels, frameCount: frames) { (shape) throws(IOError) in
                            try take(shape, keepThrough: keepThrough, into: &coded)
                        }
                    }
                } catch let thrown { error = thrown }
            }
            shared.condition.lock()
            taken += frames
            if let keepThrough = self.keepThrough {
                // Coded before the piece was closed: nothing after its last block is kept.
                coded.removeAll { $0.shape.center > keepThrough }
                if coded.contains(where: { $0.shape.center >= keepThrough }) { done = true }
            }
            packets.append(contentsOf: coded)
            if let error { failure = error }
            shared.condition.broadcast()
            shared.condition.unlock()
        }
    }

    /// Codes one block: the pre-roll's are coded only so the encoder's state is a continuous
    /// one's; the rest are kept, up to the one centred on `keepThrough`.
    private func take(_ shape: VorbisBlockShape, keepThrough: Int64?, into coded: inout [VorbisPiecePacket]) throws(IOError) {
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

    /// Ends the encoder (the last piece's), checks the splices, and lets the stream know.
    private func finish(stopped: Bool) {
        var coded: [VorbisPiecePacket] = []
        var error: IOError?
        shared.condition.lock()
        let last = self.last, keepThrough = self.keepThrough
        shared.condition.unlock()
        if !stopped {
            do {
                if last { try analysis.end { (shape) throws(IOError) in try take(shape, keepThrough: nil, into: &coded) } }
            } catch let thrown { error = thrown }
        }
        shared.condition.lock()
        packets.append(contentsOf: coded)
        if let error, failure == nil { failure = error }
        // The splices: long blocks on both sides, where the plan put them.
        if !stopped, failure == nil, let keepAfter {
            let first = emittedFirst ?? packets.first
            let meets = first.map { $0.shape.long && $0.shape.previousLong && $0.shape.center == keepAfter + Int64(analysis.longBlock / 2) }
            if meets != true { failure = IOError(.library, "the Vorbis piece \(index) does not start on its splice at frame \(keepAfter)") }
        }
        if !stopped, failure == nil, let keepThrough {
            let lastKept = packets.last ?? emittedLast
            let meets = lastKept.map { $0.shape.long && $0.shape.nextLong && $0.shape.center == keepThrough }
            if meets != true { failure = IOError(.library, "the Vorbis piece \(index) does not end on its splice at frame \(keepThrough)") }
        }
        // What was handed over and not encoded no longer counts against the stream's bound.
        for chunk in chunks { shared.queued -= chunk.audio.count }
        chunks.removeAll()
        finished = true
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// The first and last packets the stream has taken already, for the splices' check.
    private var emittedFirst: VorbisPiecePacket?
    private var emittedLast: VorbisPiecePacket?

    /// The packets the stream may write now, in order, and whether the piece is finished (with
    /// its failure, if it failed). With `wait`, waits until there is a packet or the piece is
    /// finished.
    func takePackets(wait: Bool) -> (packets: [VorbisPiecePacket], finished: Bool, failure: IOError?) {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        while true {
            let horizon = finished || closed ? Int64.max : boundary
            let ready = packets.prefix { $0.shape.center < horizon }.count
            if ready > 0 || finished || !wait {
                let out = Array(packets.prefix(ready))
                packets.removeFirst(ready)
                if let first = out.first, emittedFirst == nil { emittedFirst = first }
                if let lastOut = out.last { emittedLast = lastOut }
                return (out, finished && packets.isEmpty, finished ? failure : nil)
            }
            shared.condition.wait()
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
