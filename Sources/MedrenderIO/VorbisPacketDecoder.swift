import CVorbis
import MedrenderCore

/// One Vorbis packet as the encoder made it: its bytes, and the flags and position the Ogg
/// stream carries for it.
public struct VorbisPacket: Sendable {
    public var bytes: [UInt8]
    public var granulePosition: Int64
    public var packetNumber: Int64
    public var beginsStream: Bool
    public var endsStream: Bool

    init(_ packet: ogg_packet) {
        bytes = packet.bytes > 0 ? Array(UnsafeBufferPointer(start: packet.packet, count: packet.bytes)) : []
        granulePosition = packet.granulepos
        packetNumber = packet.packetno
        beginsStream = packet.b_o_s != 0
        endsStream = packet.e_o_s != 0
    }
}

/// Decodes the packets of a Vorbis stream as its encoder makes them, with libvorbis's synthesis,
/// so an encoded stream can be measured as it decodes while it is still being written.
///
/// libvorbis keeps pointers between its own structs, so they are allocated once (the codec's in a
/// `VorbisState`) and freed when the decoder goes. Not `Sendable`: one decoder belongs to one thread.
public final class VorbisPacketDecoder {
    private let codec = VorbisState()
    private var info: UnsafeMutablePointer<vorbis_info> { codec.info }
    private var dsp: UnsafeMutablePointer<vorbis_dsp_state> { codec.dsp }
    private var block: UnsafeMutablePointer<vorbis_block> { codec.block }
    private let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
    public let channels: Int
    public let rate: Int

    /// Starts a decoder from the stream's three header packets.
    /// The corresponding C function is `vorbis_synthesis_headerin`.
    public init(headers: [VorbisPacket]) throws(IOError) {
        vorbis_comment_init(comment)
        guard headers.count == 3 else {
            throw IOError(.library, "a Vorbis stream starts with 3 header packets, not \(headers.count)")
        }
        let info = codec.info, comment = self.comment
        for header in headers {
            let code = Self.withPacket(header) { vorbis_synthesis_headerin(info, comment, $0) }
            guard code == 0 else { throw IOError(.library, "the Vorbis decoder refused a header", cause: "libvorbis error \(code)") }
        }
        channels = Int(info.pointee.channels)
        rate = Int(info.pointee.rate)
        try codec.start(decoding: true)
    }

    /// The frames of the stream's long blocks (the longest reach of a packet's window).
    public var longBlockFrames: Int { Int(vorbis_info_blocksize(info, 1)) }

    /// Forgets the packets decoded so far, to go on from any packet of the stream: the first
    /// packet decoded after this gives no audio, the next gives what it gives in a decode from the
    /// start. The corresponding C function is `vorbis_synthesis_restart`.
    public func restart() throws(IOError) {
        guard vorbis_synthesis_restart(dsp) == 0 else { throw IOError(.library, "the Vorbis decoder would not restart") }
    }

    deinit {
        vorbis_comment_clear(comment)
        comment.deallocate()
    }

    private static func withPacket<R>(_ packet: VorbisPacket, _ body: (UnsafeMutablePointer<ogg_packet>) -> R) -> R {
        var bytes = packet.bytes
        return bytes.withUnsafeMutableBufferPointer { p in
            var op = ogg_packet(packet: p.baseAddress, bytes: p.count, b_o_s: packet.beginsStream ? 1 : 0, e_o_s: packet.endsStream ? 1 : 0,
                                granulepos: packet.granulePosition, packetno: packet.packetNumber)
            return body(&op)
        }
    }

    /// Decodes one audio packet and hands what it completes to `output`, one channel per buffer,
    /// possibly in several calls. The corresponding C function is `vorbis_synthesis`.
    public func decode(_ packet: VorbisPacket,
                       output: (_ channels: UnsafePointer<UnsafeMutablePointer<Float>?>, _ frameCount: Int) throws -> Void) throws {
        let block = self.block
        let code = Self.withPacket(packet) { vorbis_synthesis(block, $0) }
        guard code == 0 else { throw IOError(.library, "the Vorbis decoder refused a packet", cause: "libvorbis error \(code)") }
        guard vorbis_synthesis_blockin(dsp, block) == 0 else { throw IOError(.library, "the Vorbis decoder refused a block") }
        var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
        while true {
            let n = vorbis_synthesis_pcmout(dsp, &pcm)
            guard n > 0, let pcm else { break }
            try output(pcm, Int(n))
            vorbis_synthesis_read(dsp, n)
        }
    }
}
