import CVorbis
import MedrenderCore

/// Encodes OGG Vorbis with libvorbisenc and libogg directly.
///
/// The stream serial is fixed, so the same audio gives the same bytes; audio goes to libvorbis in
/// small blocks (it keeps each block on the stack); every page written is checked.
/// libvorbis keeps pointers between its own structs, so they are allocated once (the codec's in a
/// `VorbisState`) and freed when the encoder goes.
///
/// Not `Sendable`: one encoder belongs to one thread.
public final class VorbisEncoder {
    /// The stream serial of every file medrender writes: "medr".
    public static let serial: Int32 = 0x6D65_6472
    /// The most frames handed to libvorbis at once.
    static let blockFrames = 1024

    private let codec = VorbisState()
    private var info: UnsafeMutablePointer<vorbis_info> { codec.info }
    private var dsp: UnsafeMutablePointer<vorbis_dsp_state> { codec.dsp }
    private var block: UnsafeMutablePointer<vorbis_block> { codec.block }
    private let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
    private let stream = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private var stage = 0  // of `comment` and `stream`, how many are initialized, for deinit
    private let sink: ByteSink
    public let channels: Int
    private var finished = false
    /// Audio waiting to make up a whole block, so libvorbis always gets the same blocks for the
    /// same audio, however the caller splits it (and so the same bytes).
    private var pending: [Float]
    private var pendingFrames = 0
    /// The stream's three header packets, for a decoder of its packets.
    public private(set) var headerPackets: [VorbisPacket] = []
    /// Called with every audio packet as it is made, before it goes on a page: a decoder can
    /// measure the stream while it is written.
    public var packetObserver: ((VorbisPacket) throws -> Void)?

    /// Sets `info` up for `channels` channels at `rate` hertz, at variable bit rate of `quality`
    /// (as oggenc's `-q`, −1…10). The corresponding C function is `vorbis_encode_init_vbr`.
    static func setUpVBR(_ info: UnsafeMutablePointer<vorbis_info>, channels: Int, rate: Int, quality: Double) throws(IOError) {
        let code = vorbis_encode_init_vbr(info, channels, rate, Float(quality / 10))
        guard code == 0 else {
            throw IOError(.library, "the Vorbis encoder refused \(channels) channels at \(rate) Hz, quality \(quality)",
                          cause: "libvorbis error \(code)")
        }
    }

    /// Starts a stream and writes its headers.
    ///
    /// - Parameters:
    ///   - quality: as oggenc's `-q`, −1…10, default 4.
    ///   - tags: Vorbis comments, in order (`TITLE`, `ARTIST`, …).
    /// The corresponding C function is `vorbis_encode_init_vbr`.
    public init(sink: ByteSink, channels: Int, rate: Int, quality: Double, tags: [(String, String)] = []) throws(IOError) {
        self.sink = sink
        self.channels = channels
        self.pending = [Float](repeating: 0, count: Self.blockFrames * channels)
        try VorbisEncoder.setUpVBR(codec.info, channels: channels, rate: rate, quality: quality)
        vorbis_comment_init(comment)
        stage = 1
        for (key, value) in tags { vorbis_comment_add_tag(comment, key, value) }
        try codec.start(decoding: false)
        guard ogg_stream_init(stream, Self.serial) == 0 else { throw IOError(.library, "the Ogg stream would not start") }
        stage = 2

        var header = ogg_packet(), headerComment = ogg_packet(), headerCode = ogg_packet()
        guard vorbis_analysis_headerout(dsp, comment, &header, &headerComment, &headerCode) == 0 else {
            throw IOError(.library, "the Vorbis encoder could not write its headers")
        }
        headerPackets = [VorbisPacket(header), VorbisPacket(headerComment), VorbisPacket(headerCode)]
        ogg_stream_packetin(stream, &header)
        ogg_stream_packetin(stream, &headerComment)
        ogg_stream_packetin(stream, &headerCode)
        var page = ogg_page()
        while ogg_stream_flush(stream, &page) != 0 { try write(page) }
    }

    deinit {
        if stage >= 2 { ogg_stream_clear(stream) }
        if stage >= 1 { vorbis_comment_clear(comment) }
        comment.deallocate()
        stream.deallocate()
    }

    private func write(_ page: ogg_page) throws(IOError) {
        try sink.write(UnsafeRawBufferPointer(start: page.header, count: page.header_len))
        try sink.write(UnsafeRawBufferPointer(start: page.body, count: page.body_len))
    }

    /// Encodes `frameCount` interleaved frames.
    public func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        var done = 0
        while done < frameCount {
            // Whole blocks go straight from the caller's frames to libvorbis; only a block's
            // beginning or end waits in `pending`. Either way libvorbis gets the same blocks.
            if pendingFrames == 0, frameCount - done >= Self.blockFrames {
                try hand(frames + done * channels, frameCount: Self.blockFrames)
                done += Self.blockFrames
                continue
            }
            let n = min(Self.blockFrames - pendingFrames, frameCount - done)
            let channels = self.channels, at = pendingFrames * channels
            pending.withUnsafeMutableBufferPointer { p in
                for i in 0..<(n * channels) { p[at + i] = frames[done * channels + i] }
            }
            pendingFrames += n
            done += n
            if pendingFrames == Self.blockFrames { try flushPending() }
        }
    }

    /// Hands the pending block to libvorbis.
    private func flushPending() throws(IOError) {
        let n = pendingFrames
        guard n > 0 else { return }
        pendingFrames = 0
        let copy = pending
        try copy.withUnsafeBufferPointer { (p) throws(IOError) in try hand(p.baseAddress!, frameCount: n) }
    }

    /// Deinterleaves `frameCount` frames into libvorbis's buffers and encodes what is ready.
    /// The corresponding C function is `vorbis_analysis_wrote`.
    private func hand(_ frames: UnsafePointer<Float>, frameCount n: Int) throws(IOError) {
        guard let buffers = vorbis_analysis_buffer(dsp, Int32(n)) else {
            throw IOError(.library, "the Vorbis encoder had no buffer")
        }
        VorbisEncoder.deinterleave(frames, frameCount: n, channels: channels, into: buffers)
        guard vorbis_analysis_wrote(dsp, Int32(n)) == 0 else { throw IOError(.library, "the Vorbis encoder refused audio") }
        try drain()
    }

    private func drain() throws(IOError) {
        let observer = packetObserver
        var packet = ogg_packet()
        var page = ogg_page()
        while vorbis_analysis_blockout(dsp, block) == 1 {
            guard vorbis_analysis(block, nil) == 0, vorbis_bitrate_addblock(block) == 0 else {
                throw IOError(.library, "the Vorbis encoder failed on a block")
            }
            while vorbis_bitrate_flushpacket(dsp, &packet) == 1 {
                if let observer {
                    do { try observer(VorbisPacket(packet)) } catch let error as IOError { throw error } catch {
                        throw IOError(.library, "the stream's check stopped", cause: "\(error)")
                    }
                }
                ogg_stream_packetin(stream, &packet)
                while ogg_stream_pageout(stream, &page) != 0 { try write(page) }
            }
        }
    }

    /// Copies `frameCount` interleaved frames into libvorbis's buffers, one per channel: a stereo
    /// frame's two samples in one step (the loop the compiler makes vectors of), other counts a
    /// channel at a time.
    @inline(__always)
    static func deinterleave<Sample: SoundSample>(_ frames: UnsafePointer<Sample>, frameCount n: Int, channels: Int,
                                                  into buffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>) {
        if channels == 2, let left = buffers[0], let right = buffers[1] {
            for i in 0..<n {
                left[i] = frames[2 * i].soundValue
                right[i] = frames[2 * i + 1].soundValue
            }
            return
        }
        for c in 0..<channels {
            let channel = buffers[c]!
            for i in 0..<n { channel[i] = frames[i * channels + c].soundValue }
        }
    }

    /// Ends the stream and writes its last pages.
    public func finish() throws(IOError) {
        guard !finished else { return }
        finished = true
        try flushPending()
        guard vorbis_analysis_wrote(dsp, 0) == 0 else { throw IOError(.library, "the Vorbis encoder would not end") }
        try drain()
        var page = ogg_page()
        while ogg_stream_flush(stream, &page) != 0 { try write(page) }
    }
}
