import CVorbis
import MedrenderCore

/// The shape of one Vorbis block as the encoder chose it: where its centre falls and which of the
/// two block sizes it and its neighbours have.
struct VorbisBlockShape: Sendable, Equatable {
    /// The frame at the block's centre, counted from the first frame the analysis was given (the
    /// block's granule position, but for the last block of a stream, which is trimmed).
    var center: Int64
    var long: Bool
    var previousLong: Bool
    var nextLong: Bool
}

/// One libvorbis analysis (`vorbis_info`, `vorbis_dsp_state`, `vorbis_block`) without an Ogg stream:
/// audio in, block shapes and packets out. The pieced encoder runs several of these, and a scout
/// that only chooses block sizes (`vorbis_analysis_blockout`, a small part of the work) without
/// coding them.
///
/// Audio goes to libvorbis in blocks of `VorbisEncoder.blockFrames` counted from the first frame
/// given, however the caller splits it. Not `Sendable`: one analysis belongs to one thread.
final class VorbisAnalysis {
    private let codec = VorbisState()
    private var info: UnsafeMutablePointer<vorbis_info> { codec.info }
    private var dsp: UnsafeMutablePointer<vorbis_dsp_state> { codec.dsp }
    private var block: UnsafeMutablePointer<vorbis_block> { codec.block }
    let channels: Int
    /// The short and long block sizes in frames (libvorbis chooses them from rate and quality).
    let shortBlock: Int
    let longBlock: Int
    private var pending: [Float]
    private var pendingFrames = 0
    private var ended = false

    /// The corresponding C function is `vorbis_encode_init_vbr`.
    init(channels: Int, rate: Int, quality: Double) throws(IOError) {
        self.channels = channels
        pending = [Float](repeating: 0, count: VorbisEncoder.blockFrames * channels)
        try VorbisEncoder.setUpVBR(codec.info, channels: channels, rate: rate, quality: quality)
        try codec.start(decoding: false)
        shortBlock = Int(vorbis_info_blocksize(codec.info, 0))
        longBlock = Int(vorbis_info_blocksize(codec.info, 1))
        guard shortBlock > 0, longBlock >= shortBlock else { throw IOError(.library, "the Vorbis encoder gave no block sizes") }
    }

    /// The three header packets, with `tags` as the comments. Every analysis with the same
    /// channels, rate and quality makes the same ones.
    /// The corresponding C function is `vorbis_analysis_headerout`.
    func headerPackets(tags: [(String, String)]) throws(IOError) -> [VorbisPacket] {
        let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
        vorbis_comment_init(comment)
        defer {
            vorbis_comment_clear(comment)
            comment.deallocate()
        }
        for (key, value) in tags { vorbis_comment_add_tag(comment, key, value) }
        var header = ogg_packet(), headerComment = ogg_packet(), headerCode = ogg_packet()
        guard vorbis_analysis_headerout(dsp, comment, &header, &headerComment, &headerCode) == 0 else {
            throw IOError(.library, "the Vorbis encoder could not write its headers")
        }
        return [VorbisPacket(header), VorbisPacket(headerComment), VorbisPacket(headerCode)]
    }

    /// Takes `frameCount` interleaved frames (floats, or the 16-bit samples a pieced stream holds);
    /// `block` is called for every block that is ready.
    func write<Sample: SoundSample>(_ frames: UnsafePointer<Sample>, frameCount: Int,
                                     block: (VorbisBlockShape) throws(IOError) -> Void) throws(IOError) {
        var done = 0
        let channels = self.channels, size = VorbisEncoder.blockFrames
        while done < frameCount {
            if pendingFrames == 0, frameCount - done >= size {
                try hand(frames + done * channels, frameCount: size, block: block)
                done += size
                continue
            }
            let n = min(size - pendingFrames, frameCount - done)
            let at = pendingFrames * channels
            pending.withUnsafeMutableBufferPointer { p in
                for i in 0..<(n * channels) { p[at + i] = frames[done * channels + i].soundValue }
            }
            pendingFrames += n
            done += n
            if pendingFrames == size { try flushPending(block: block) }
        }
    }

    /// Gives the analysis the `frameCount` interleaved frames at `audio`, a block at a time, until
    /// it has placed a block centred at or after `through` or the audio runs out. The analysis's
    /// first frame is the stream's frame `offset`: `through` and the shapes returned are in the
    /// stream's frames. `block` is called with each block as `write` gives it (so it may `code`
    /// it). Returns the shapes and the frames given.
    func place(_ audio: UnsafePointer<Int16>, frameCount: Int, offset: Int, through: Int64,
               block: (VorbisBlockShape) throws(IOError) -> Void = { _ in }) throws(IOError) -> (shapes: [VorbisBlockShape], frames: Int) {
        var shapes: [VorbisBlockShape] = []
        var at = 0
        while at < frameCount, shapes.last.map({ $0.center < through }) ?? true {
            let n = min(VorbisEncoder.blockFrames, frameCount - at)
            try write(audio + at * channels, frameCount: n) { (shape) throws(IOError) in
                var placed = shape
                placed.center += Int64(offset)
                shapes.append(placed)
                try block(shape)
            }
            at += n
        }
        return (shapes, at)
    }

    /// Ends the audio: the last blocks come out, the last one trimmed to the audio's end.
    func end(block: (VorbisBlockShape) throws(IOError) -> Void) throws(IOError) {
        guard !ended else { return }
        ended = true
        try flushPending(block: block)
        guard vorbis_analysis_wrote(dsp, 0) == 0 else { throw IOError(.library, "the Vorbis encoder would not end") }
        try drain(block: block)
    }

    private func flushPending(block: (VorbisBlockShape) throws(IOError) -> Void) throws(IOError) {
        let n = pendingFrames
        guard n > 0 else { return }
        pendingFrames = 0
        let copy = pending
        try copy.withUnsafeBufferPointer { (p) throws(IOError) in try hand(p.baseAddress!, frameCount: n, block: block) }
    }

    /// The corresponding C function is `vorbis_analysis_wrote`.
    private func hand<Sample: SoundSample>(_ frames: UnsafePointer<Sample>, frameCount n: Int,
                                            block: (VorbisBlockShape) throws(IOError) -> Void) throws(IOError) {
        guard let buffers = vorbis_analysis_buffer(dsp, Int32(n)) else { throw IOError(.library, "the Vorbis encoder had no buffer") }
        VorbisEncoder.deinterleave(frames, frameCount: n, channels: channels, into: buffers)
        guard vorbis_analysis_wrote(dsp, Int32(n)) == 0 else { throw IOError(.library, "the Vorbis encoder refused audio") }
        try drain(block: block)
    }

    /// The corresponding C function is `vorbis_analysis_blockout`.
    private func drain(block body: (VorbisBlockShape) throws(IOError) -> Void) throws(IOError) {
        while true {
            let code = vorbis_analysis_blockout(dsp, block)
            guard code >= 0 else { throw IOError(.library, "the Vorbis encoder failed on a block", cause: "libvorbis error \(code)") }
            guard code == 1 else { return }
            // With one block size (libvorbis's choice at low rates) every block is a long one.
            let b = block.pointee, one = shortBlock == longBlock
            try body(VorbisBlockShape(center: b.granulepos, long: one || b.W != 0, previousLong: one || b.lW != 0, nextLong: one || b.nW != 0))
        }
    }

    /// Codes the block just given to `write`'s or `end`'s `block` (call it from there) and hands
    /// its packet to `packet`. A block not coded leaves only the block-size choice made.
    /// The corresponding C functions are `vorbis_analysis`, `vorbis_bitrate_addblock` and
    /// `vorbis_bitrate_flushpacket`.
    func code(packet body: (ogg_packet) throws(IOError) -> Void) throws(IOError) {
        guard vorbis_analysis(block, nil) == 0, vorbis_bitrate_addblock(block) == 0 else {
            throw IOError(.library, "the Vorbis encoder failed on a block")
        }
        var packet = ogg_packet()
        while true {
            let code = vorbis_bitrate_flushpacket(dsp, &packet)
            guard code >= 0 else { throw IOError(.library, "the Vorbis encoder failed on a packet", cause: "libvorbis error \(code)") }
            guard code == 1 else { return }
            try body(packet)
        }
    }
}
