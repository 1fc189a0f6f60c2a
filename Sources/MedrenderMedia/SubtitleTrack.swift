// SPDX-License-Identifier: Apache-2.0
import CFFmpeg
import Foundation
import Medrender
import MedrenderCore
import MedrenderVideo

/// The video's subtitle track: the spoken lines (`VideoCaption`) as timed text — `mov_text` (3GPP
/// timed text) in an MP4, WebVTT in a WebM — encoded by libavcodec's own text encoders from ASS
/// events, as ffmpeg's command line converts subtitles. Each line is one cue, from its frames on
/// the mix's clock (the cue sheet's), which libavformat turns into the stream's.
///
/// Not `Sendable`: it belongs to the writer's thread.
final class SubtitleTrack {
    let stream: UnsafeMutablePointer<AVStream>
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let path: String

    /// The ASS header libavcodec's text encoders read their style from: one plain style.
    static let header = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, \
        StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """

    /// Opens the encoder for `container`'s timed text and adds its stream to `ctx`, before the
    /// container's header is written.
    init(in ctx: UnsafeMutablePointer<AVFormatContext>, container: VideoContainer, globalHeader: Bool, path: String) throws(RenderError) {
        self.path = path
        let (id, name) = container == .mp4 ? (AV_CODEC_ID_MOV_TEXT, "mov_text") : (AV_CODEC_ID_WEBVTT, "webvtt")
        guard let encoder = avcodec_find_encoder(id) else {
            throw RenderError("this system's FFmpeg (libavcodec) has no \(name) encoder, which the subtitles of .\(container.rawValue) need",
                              category: .cannotCreate)
        }
        guard let c = avcodec_alloc_context3(encoder), let header = av_strdup(Self.header) else {
            throw RenderError("\(path): out of memory", category: .internal)
        }
        codec = c
        c.pointee.time_base = AVRational(num: 1, den: 1000)
        // The context owns the header from here (avcodec_free_context frees it).
        c.pointee.subtitle_header = UnsafeMutableRawPointer(header).assumingMemoryBound(to: UInt8.self)
        c.pointee.subtitle_header_size = Int32(Self.header.utf8.count)
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try VideoFileWriter.check(avcodec_open2(c, encoder, nil), "opening the \(name) encoder", path: path)
        guard let s = avformat_new_stream(ctx, nil) else { throw RenderError("\(path): out of memory", category: .internal) }
        try VideoFileWriter.check(avcodec_parameters_from_context(s.pointee.codecpar, c), "describing the subtitle stream", path: path)
        s.pointee.time_base = c.pointee.time_base
        stream = s
    }

    deinit { avcodec_free_context(&codec) }

    /// A line's text as an ASS event's text: a new line as ASS writes one (`\N`), and a backslash,
    /// which would start an ASS code, as a slash.
    static func assText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "/").replacingOccurrences(of: "\r\n", with: "\\N").replacingOccurrences(of: "\n", with: "\\N")
    }

    /// Writes every caption into `ctx`, after its header: the muxer interleaves them with the
    /// pictures and the sound by their times, which libavformat converts from the mix's frames
    /// (`rate` a second) to the stream's clock.
    func write(_ captions: [VideoCaption], rate: Int, into ctx: UnsafeMutablePointer<AVFormatContext>) throws(RenderError) {
        guard let packet = av_packet_alloc() else { throw RenderError("\(path): out of memory", category: .internal) }
        defer { var owned: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&owned) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let mix = AVRational(num: 1, den: Int32(rate)), clock = stream.pointee.time_base
        for (order, caption) in captions.enumerated() {
            let start = av_rescale_q(caption.frame, mix, clock)
            let end = max(start + 1, av_rescale_q(caption.endFrame, mix, clock))
            let size = try encode("\(order),0,Default,,0,0,0,,\(Self.assText(caption.text))", start: start, end: end, into: &buffer)
            try VideoFileWriter.check(av_new_packet(packet, size), "writing the subtitles", path: path)
            buffer.withUnsafeBytes { packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: Int(size)) }
            packet.pointee.pts = start
            packet.pointee.dts = start
            packet.pointee.duration = end - start
            packet.pointee.stream_index = stream.pointee.index
            try VideoFileWriter.check(av_interleaved_write_frame(ctx, packet), "writing the subtitles", path: path)
        }
    }

    /// Encodes one ASS event (`ReadOrder, Layer, Style, Name, MarginL, MarginR, MarginV, Effect,
    /// Text`) shown from `start` to `end` (on the stream's clock) into `buffer`; gives its size.
    /// The corresponding C function is `avcodec_encode_subtitle`.
    private func encode(_ event: String, start: Int64, end: Int64, into buffer: inout [UInt8]) throws(RenderError) -> Int32 {
        guard let rects = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.size)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self),
              let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.size)?.assumingMemoryBound(to: AVSubtitleRect.self) else {
            throw RenderError("\(path): out of memory", category: .internal)
        }
        rect.pointee.type = SUBTITLE_ASS
        rect.pointee.ass = av_strdup(event)
        rects[0] = rect
        var subtitle = AVSubtitle()
        subtitle.format = 1
        subtitle.start_display_time = 0
        let clock = stream.pointee.time_base
        subtitle.end_display_time = UInt32(clamping: av_rescale_q(end - start, clock, AVRational(num: 1, den: 1000)))
        subtitle.pts = av_rescale_q(start, clock, AVRational(num: 1, den: 1_000_000))
        subtitle.num_rects = 1
        subtitle.rects = rects
        defer { avsubtitle_free(&subtitle) }
        let size = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(codec, $0.baseAddress, Int32($0.count), &subtitle) }
        return try VideoFileWriter.check(size, "encoding the subtitles", path: path)
    }
}
