import CVorbis

/// One piece of a pieced Vorbis stream: the audio its encoder is given (from a little before the
/// piece, the pre-roll, to a little after it) and which of its packets the stream keeps.
///
/// Its packets are kept from the first block after `keepAfter` to the block centred on
/// `keepThrough`, both splices between two long blocks that this piece's encoder and its
/// neighbour's place at the same frames. A value, so a worker thread can encode it.
struct VorbisPiece: Sendable {
    var index: Int
    /// The frame of the stream its encoder starts at (the pre-roll's first frame).
    var start: Int
    /// The audio from `start`, interleaved, to the last frame its encoder needs.
    var audio: [Float]
    /// The centre of the last block of the piece before (nil for the first piece).
    var keepAfter: Int64?
    /// The centre of this piece's last block (nil for the last piece, which ends the stream).
    var keepThrough: Int64?
    var channels: Int
    var rate: Int
    var quality: Double
}

/// A packet of a piece, placed in the whole stream.
struct VorbisPiecePacket: Sendable {
    var bytes: [UInt8]
    /// The frame at its block's centre in the whole stream (the end of the stream for the last).
    var granulePosition: Int64
    var shape: VorbisBlockShape
    var endsStream: Bool
}

extension VorbisPiece {
    /// Encodes the piece and gives the packets the stream keeps, in order.
    ///
    /// Throws when the piece's blocks do not meet its neighbours' as planned (its first kept block
    /// must be long and follow a long one; its last must be long and precede a long one).
    func encode() throws(IOError) -> [VorbisPiecePacket] {
        let analysis = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        var kept: [VorbisPiecePacket] = []
        var done = false
        let offset = Int64(start)
        let keepAfter = self.keepAfter, keepThrough = self.keepThrough
        func take(_ shape: VorbisBlockShape) throws(IOError) {
            guard !done else { return }
            let center = shape.center + offset
            if let keepAfter, center <= keepAfter {
                // Pre-roll: coded so the encoder's state is what a continuous one would have.
                try analysis.code { _ throws(IOError) in }
                return
            }
            try analysis.code { (packet) throws(IOError) in
                var placed = shape
                placed.center = center
                kept.append(VorbisPiecePacket(bytes: Array(UnsafeBufferPointer(start: packet.packet, count: packet.bytes)),
                                              granulePosition: packet.granulepos + offset, shape: placed, endsStream: packet.e_o_s != 0))
            }
            if let keepThrough, center >= keepThrough { done = true }
        }
        let frames = audio.count / channels
        try audio.withUnsafeBufferPointer { (p) throws(IOError) in
            var at = 0
            // In steps, so the encoder stops soon after the last block kept.
            while at < frames, !done {
                let n = min(VorbisEncoder.blockFrames, frames - at)
                try analysis.write(p.baseAddress! + at * channels, frameCount: n, block: take)
                at += n
            }
        }
        if keepThrough == nil { try analysis.end(block: take) }
        // The splices: long blocks on both sides, where the plan put them.
        if let keepAfter {
            guard let first = kept.first, first.shape.long, first.shape.previousLong,
                first.shape.center == keepAfter + Int64(analysis.longBlock / 2)
            else { throw IOError(.library, "the Vorbis piece \(index) does not start on its splice at frame \(keepAfter)") }
        }
        if let keepThrough {
            guard let last = kept.last, last.shape.long, last.shape.nextLong, last.shape.center == keepThrough else {
                throw IOError(.library, "the Vorbis piece \(index) does not end on its splice at frame \(keepThrough)")
            }
        }
        return kept
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
        var copy = bytes
        let number = packetNumber
        packetNumber += 1
        let code = copy.withUnsafeMutableBufferPointer { p in
            var packet = ogg_packet(packet: p.baseAddress, bytes: p.count, b_o_s: beginsStream ? 1 : 0, e_o_s: endsStream ? 1 : 0,
                                    granulepos: granulePosition, packetno: number)
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
