import CFFmpeg
import Foundation
import Medrender
import MedrenderCore
import MedrenderVideo

/// Encodes the picture and the mix with FFmpeg's libraries into a container: H.264 (libx264) and
/// AAC in MP4, VP9 (libvpx) and Opus in WebM; and the spoken lines as a subtitle track
/// (`SubtitleTrack`). Without a picture, the mix alone as AAC in an M4A (MP4's audio file, the
/// `ipod` muxer), with tags and chapters.
///
/// Video frame `k` has the timestamp `k` in 1/fps; the last one lasts only until the audio ends,
/// so the video's length is the audio's. The audio is taken in the mix's blocks (Float32,
/// interleaved, at the session's rate), converted by libswresample to the encoder's sample format
/// (and to 48 kHz for Opus), and handed to the encoder in its frame size through a FIFO.
///
/// Not `Sendable`: one writer belongs to one thread.
final class VideoFileWriter {
    let path: String
    let container: VideoContainer
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var videoCodec: UnsafeMutablePointer<AVCodecContext>?
    private var audioCodec: UnsafeMutablePointer<AVCodecContext>?
    private let videoStream: UnsafeMutablePointer<AVStream>?
    private let audioStream: UnsafeMutablePointer<AVStream>
    /// The spoken lines' track; nil when nothing is spoken.
    private let subtitles: SubtitleTrack?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var audioFrame: UnsafeMutablePointer<AVFrame>?
    private var resampler: OpaquePointer?
    private let fifo: OpaquePointer
    /// The converted block, before the FIFO: one plane per channel (planar formats) or one.
    private let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private let planeCount: Int
    private let planeCapacity: Int
    private let inputRate: Int
    private let channels: Int
    private let audioFrameSize: Int
    private let padsLastFrame: Bool
    private var samplesSent: Int64 = 0
    /// The video's last frame and the audio's end, for the last frame's length.
    private let lastVideoFrame: Int64
    private let totalAudioFrames: Int64
    private var headerWritten = false
    /// The audio packet last encoded, written when the next comes: the last one's length is set
    /// so that the audio ends where the session does.
    private var heldAudio: UnsafeMutablePointer<AVPacket>?
    private var holdsAudio = false
    /// The audio's samples at the encoder's rate: the session's length.
    private let audioSamplesTotal: Int64
    /// What WebM's audio timestamps are moved by: Opus's pre-skip. Matroska plays a block at its
    /// timestamp less the codec's delay, so the first kept sample lands on 0 with the video,
    /// instead of the muxer shifting every stream (the video too) to keep the pre-skip at 0.
    private var audioShift: Int64 = 0

    /// The encoders' names per container.
    static func encoderNames(_ container: VideoContainer) -> (video: String, audio: String) {
        switch container {
        case .mp4: ("libx264", "aac")
        case .webm: ("libvpx-vp9", "libopus")
        }
    }

    /// The video encoder's settings, as `ffmpeg` takes them (`-preset veryfast -crf 23`…), so a
    /// benchmark can run `ffmpeg` with the same.
    static func videoOptions(_ container: VideoContainer) -> [(String, String)] {
        switch container {
        case .mp4: [("preset", "veryfast"), ("crf", "23"), ("threads", "1")]
        case .webm: [("deadline", "realtime"), ("cpu-used", "8"), ("row-mt", "1"), ("crf", "33"), ("b", "0"), ("threads", "1")]
        }
    }

    /// The audio's bit rate, bits a second for each channel.
    static func audioBitsPerChannel(_ container: VideoContainer) -> Int {
        container == .mp4 ? 80_000 : 56_000
    }

    /// Opens the encoders and the file at `path` (which exists, empty: the temporary file of an
    /// `AtomicOutputFile`), writes the container's header and then `captions`, the subtitles.
    /// Without `settings`, an M4A: no picture, the file's `metadata` and `chapters`.
    init(path: String, settings: VideoSettings?, rate: Int, channels: Int, totalAudioFrames: Int64, videoFrames: Int64,
         captions: [VideoCaption] = [], metadata: [[String]] = [], chapters: [MediaChapter] = []) throws(RenderError) {
        // The libraries' own chatter stays quiet; their errors come back as return codes.
        av_log_set_level(AV_LOG_ERROR)
        self.path = path
        let container = settings?.container ?? .mp4
        self.container = container
        self.inputRate = rate
        self.channels = channels
        self.totalAudioFrames = totalAudioFrames
        self.lastVideoFrame = videoFrames - 1
        let names = Self.encoderNames(container)

        var context: UnsafeMutablePointer<AVFormatContext>?
        let muxer = settings == nil ? "ipod" : container == .mp4 ? "mp4" : "webm"
        try Self.check(avformat_alloc_output_context2(&context, nil, muxer, path), "opening the \(muxer) muxer", path: path)
        format = context
        guard let ctx = context else { throw RenderError("\(path): FFmpeg has no \(muxer) muxer", category: .internal) }
        let globalHeader = (ctx.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0

        if let settings {
            let (vc, vs) = try Self.openVideoEncoder(names.video, in: ctx, settings: settings, globalHeader: globalHeader, path: path)
            videoCodec = vc
            videoStream = vs
        } else {
            videoStream = nil
        }

        let outputRate = container == .webm ? 48000 : rate
        let sampleFormat = container == .webm ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP
        let (audio, ac, aus) = try Self.openAudioEncoder(names.audio, in: ctx, container: container, channels: channels, rate: outputRate,
                                                         sampleFormat: sampleFormat, globalHeader: globalHeader, path: path)
        audioCodec = ac
        audioStream = aus
        audioSamplesTotal = av_rescale(totalAudioFrames, Int64(outputRate), Int64(rate))
        audioFrameSize = Int(ac.pointee.frame_size > 0 ? ac.pointee.frame_size : 1024)
        padsLastFrame = (audio.pointee.capabilities & Int32(AV_CODEC_CAP_SMALL_LAST_FRAME)) == 0
        if container == .webm { audioShift = Int64(ac.pointee.initial_padding) }
        subtitles = captions.isEmpty ? nil : try SubtitleTrack(in: ctx, container: container, globalHeader: globalHeader, path: path)
        for pair in metadata where pair.count == 2 { av_dict_set(&ctx.pointee.metadata, pair[0], pair[1], 0) }
        try Self.add(chapters, rate: rate, to: ctx, path: path)

        // The mix's blocks to the encoder's format and rate.
        resampler = try Self.openResampler(from: rate, to: &ac.pointee.ch_layout, sampleFormat, rate: outputRate, channels: channels, path: path)
        guard let queue = av_audio_fifo_alloc(sampleFormat, Int32(channels), Int32(audioFrameSize * 8)) else {
            throw RenderError("\(path): out of memory", category: .internal)
        }
        fifo = queue
        let planar = av_sample_fmt_is_planar(sampleFormat) != 0
        planeCount = planar ? channels : 1
        // Room for a block of the mix at the output rate, and the resampler's delay.
        let maxOut = (MasterStream.blockFrames * outputRate + rate - 1) / rate + 512
        planeCapacity = maxOut * 4 * (planar ? 1 : channels)
        planes = .allocate(capacity: planeCount)
        for i in 0..<planeCount { planes[i] = .allocate(capacity: planeCapacity) }

        guard let frame = av_frame_alloc(), let pkt = av_packet_alloc(), let held = av_packet_alloc() else {
            throw RenderError("\(path): out of memory", category: .internal)
        }
        audioFrame = frame
        packet = pkt
        heldAudio = held
        try Self.prepare(frame, sampleFormat, rate: outputRate, samples: audioFrameSize, layout: &ac.pointee.ch_layout, path: path)

        // The file and the header.
        try Self.writeHeader(ctx, container: container, path: path)
        headerWritten = true
        try subtitles?.write(captions, rate: rate, into: ctx)
    }

    /// Opens the video encoder `name` (a `videoOptions` one) for `settings`' picture, and its
    /// stream in the container `ctx`.
    private static func openVideoEncoder(_ name: String, in ctx: UnsafeMutablePointer<AVFormatContext>, settings: VideoSettings,
                                         globalHeader: Bool, path: String)
        throws(RenderError) -> (UnsafeMutablePointer<AVCodecContext>, UnsafeMutablePointer<AVStream>) {
        guard let video = avcodec_find_encoder_by_name(name) else {
            throw RenderError("this system's FFmpeg (libavcodec) has no \(name) encoder, which .\(settings.container.rawValue) needs; "
                + "install a libavcodec built with it, or write .\(settings.container == .mp4 ? "webm" : "mp4")", category: .cannotCreate)
        }
        guard let vc = avcodec_alloc_context3(video) else { throw RenderError("\(path): out of memory", category: .internal) }
        vc.pointee.width = Int32(settings.size.width)
        vc.pointee.height = Int32(settings.size.height)
        vc.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
        vc.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
        vc.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        vc.pointee.gop_size = Int32(settings.fps * 10)
        vc.pointee.colorspace = AVCOL_SPC_SMPTE170M
        vc.pointee.color_primaries = AVCOL_PRI_SMPTE170M
        vc.pointee.color_trc = AVCOL_TRC_SMPTE170M
        vc.pointee.color_range = AVCOL_RANGE_MPEG
        if globalHeader { vc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var videoOptions: OpaquePointer?
        for (key, value) in Self.videoOptions(settings.container) { av_dict_set(&videoOptions, key, value, 0) }
        let openedVideo = avcodec_open2(vc, video, &videoOptions)
        av_dict_free(&videoOptions)
        try Self.check(openedVideo, "opening the \(name) encoder", path: path)
        guard let vs = avformat_new_stream(ctx, nil) else { throw RenderError("\(path): out of memory", category: .internal) }
        try Self.check(avcodec_parameters_from_context(vs.pointee.codecpar, vc), "describing the video stream", path: path)
        vs.pointee.time_base = vc.pointee.time_base
        vs.pointee.avg_frame_rate = vc.pointee.framerate
        return (vc, vs)
    }

    /// Opens the audio encoder `name` for `channels` channels of `sampleFormat` at `rate` hertz
    /// (`audioBitsPerChannel` each), and its stream in the container `ctx`; returns the encoder too.
    private static func openAudioEncoder(_ name: String, in ctx: UnsafeMutablePointer<AVFormatContext>, container: VideoContainer,
                                         channels: Int, rate outputRate: Int, sampleFormat: AVSampleFormat, globalHeader: Bool, path: String)
        throws(RenderError) -> (UnsafePointer<AVCodec>, UnsafeMutablePointer<AVCodecContext>, UnsafeMutablePointer<AVStream>) {
        guard let audio = avcodec_find_encoder_by_name(name) else {
            throw RenderError("this system's FFmpeg (libavcodec) has no \(name) encoder, which .\(container.rawValue) needs",
                             category: .cannotCreate)
        }
        guard let ac = avcodec_alloc_context3(audio) else { throw RenderError("\(path): out of memory", category: .internal) }
        ac.pointee.sample_fmt = sampleFormat
        ac.pointee.sample_rate = Int32(outputRate)
        av_channel_layout_default(&ac.pointee.ch_layout, Int32(channels))
        ac.pointee.bit_rate = Int64(Self.audioBitsPerChannel(container) * channels)
        ac.pointee.time_base = AVRational(num: 1, den: Int32(outputRate))
        if globalHeader { ac.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try Self.check(avcodec_open2(ac, audio, nil), "opening the \(name) encoder at \(outputRate) Hz", path: path)
        guard let aus = avformat_new_stream(ctx, nil) else { throw RenderError("\(path): out of memory", category: .internal) }
        try Self.check(avcodec_parameters_from_context(aus.pointee.codecpar, ac), "describing the audio stream", path: path)
        aus.pointee.time_base = ac.pointee.time_base
        return (audio, ac, aus)
    }

    /// A resampler from the mix's interleaved Float32 at `inputRate` (in `channels`' default
    /// layout) to `layout` and `sampleFormat` at `rate`.
    private static func openResampler(from inputRate: Int, to layout: UnsafeMutablePointer<AVChannelLayout>, _ sampleFormat: AVSampleFormat,
                                      rate outputRate: Int, channels: Int, path: String) throws(RenderError) -> OpaquePointer? {
        var inputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(channels))
        defer { av_channel_layout_uninit(&inputLayout) }
        var swr: OpaquePointer?
        try Self.check(swr_alloc_set_opts2(&swr, layout, sampleFormat, Int32(outputRate),
                                           &inputLayout, AV_SAMPLE_FMT_FLT, Int32(inputRate), 0, nil), "setting up the resampler", path: path)
        try Self.check(swr_init(swr), "setting up the resampler", path: path)
        return swr
    }

    /// Makes `frame` the encoder's audio frame: `samples` samples of `sampleFormat` at `rate`
    /// hertz in `layout`, its buffers allocated.
    private static func prepare(_ frame: UnsafeMutablePointer<AVFrame>, _ sampleFormat: AVSampleFormat, rate outputRate: Int, samples: Int,
                                layout: UnsafePointer<AVChannelLayout>, path: String) throws(RenderError) {
        frame.pointee.format = sampleFormat.rawValue
        frame.pointee.sample_rate = Int32(outputRate)
        frame.pointee.nb_samples = Int32(samples)
        try Self.check(av_channel_layout_copy(&frame.pointee.ch_layout, layout), "setting up the audio frame", path: path)
        try Self.check(av_frame_get_buffer(frame, 0), "setting up the audio frame", path: path)
    }

    /// Opens the file of the container `ctx` and writes its header (an MP4's index at the front).
    private static func writeHeader(_ ctx: UnsafeMutablePointer<AVFormatContext>, container: VideoContainer, path: String) throws(RenderError) {
        try Self.check(avio_open(&ctx.pointee.pb, path, AVIO_FLAG_WRITE), "opening the file", path: path)
        var muxerOptions: OpaquePointer?
        if container == .mp4 { av_dict_set(&muxerOptions, "movflags", "+faststart", 0) }
        let header = avformat_write_header(ctx, &muxerOptions)
        av_dict_free(&muxerOptions)
        try Self.check(header, "writing the header", path: path)
    }

    /// Gives the container `chapters` (on the mix's clock, `rate` frames a second), each titled;
    /// the container frees them with itself.
    private static func add(_ chapters: [MediaChapter], rate: Int, to ctx: UnsafeMutablePointer<AVFormatContext>, path: String) throws(RenderError) {
        guard !chapters.isEmpty else { return }
        guard let list = av_calloc(chapters.count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size)?
            .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else { throw RenderError("\(path): out of memory", category: .internal) }
        ctx.pointee.chapters = list
        for (index, chapter) in chapters.enumerated() {
            guard let made = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else {
                throw RenderError("\(path): out of memory", category: .internal)
            }
            made.pointee.id = .init(index + 1)
            made.pointee.time_base = AVRational(num: 1, den: Int32(rate))
            made.pointee.start = chapter.frame
            made.pointee.end = chapter.endFrame
            av_dict_set(&made.pointee.metadata, "title", chapter.text, 0)
            list[index] = made
            ctx.pointee.nb_chapters = UInt32(index + 1)
        }
    }

    deinit {
        if let ctx = format {
            if ctx.pointee.pb != nil { avio_closep(&ctx.pointee.pb) }
            avformat_free_context(ctx)
        }
        avcodec_free_context(&videoCodec)
        avcodec_free_context(&audioCodec)
        av_packet_free(&packet)
        av_packet_free(&heldAudio)
        av_frame_free(&audioFrame)
        swr_free(&resampler)
        av_audio_fifo_free(fifo)
        for i in 0..<planeCount { planes[i]?.deallocate() }
        planes.deallocate()
    }

    /// Encodes one picture as video frame `index`. The corresponding C function is `avcodec_send_frame`.
    func writeVideo(_ frame: UnsafeMutablePointer<AVFrame>, index: Int64) throws(RenderError) {
        frame.pointee.pts = index
        try Self.check(avcodec_send_frame(videoCodec, frame), "encoding video frame \(index)", path: path)
        try drain(video: true)
    }

    /// Takes the next block of the mix (interleaved Float32 at the session's rate) and encodes
    /// every whole audio frame it completes.
    func writeAudio(_ block: UnsafeBufferPointer<Float>) throws(RenderError) {
        let frames = block.count / channels
        var input: UnsafePointer<UInt8>? = UnsafeRawPointer(block.baseAddress!).assumingMemoryBound(to: UInt8.self)
        let converted = swr_convert(resampler, planes, Int32(planeCapacity / 4 / (planeCount == 1 ? channels : 1)), &input, Int32(frames))
        try Self.check(converted, "converting the audio", path: path)
        try queue(count: converted)
        try sendWholeFrames(final: false)
    }

    private func queue(count: Int32) throws(RenderError) {
        guard count > 0 else { return }
        let written = planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: planeCount) {
            av_audio_fifo_write(fifo, $0, count)
        }
        try Self.check(written, "queueing the audio", path: path)
    }

    /// Sends the FIFO's whole frames (and, when `final`, what is left, padded with silence when
    /// the encoder takes no short last frame).
    private func sendWholeFrames(final: Bool) throws(RenderError) {
        guard let frame = audioFrame else { return }
        while true {
            let available = Int(av_audio_fifo_size(fifo))
            guard available >= audioFrameSize || (final && available > 0) else { return }
            let n = min(audioFrameSize, available)
            try Self.check(av_frame_make_writable(frame), "encoding the audio", path: path)
            frame.pointee.nb_samples = Int32(padsLastFrame ? audioFrameSize : n)
            if n < audioFrameSize && padsLastFrame {
                av_samples_set_silence(frame.pointee.extended_data, 0, Int32(audioFrameSize), Int32(channels), AVSampleFormat(frame.pointee.format))
            }
            let read = frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: planeCount) {
                av_audio_fifo_read(fifo, $0, Int32(n))
            }
            try Self.check(read, "encoding the audio", path: path)
            frame.pointee.pts = samplesSent
            samplesSent += Int64(n)
            try Self.check(avcodec_send_frame(audioCodec, frame), "encoding the audio", path: path)
            try drain(video: false)
        }
    }

    /// Flushes both encoders, writes the trailer and closes the file.
    func finish() throws(RenderError) {
        if videoCodec != nil {
            try Self.check(avcodec_send_frame(videoCodec, nil), "finishing the video", path: path)
            try drain(video: true)
        }
        // What the resampler still holds, then the FIFO's last short frame.
        let rest = swr_convert(resampler, planes, Int32(planeCapacity / 4 / (planeCount == 1 ? channels : 1)), nil, 0)
        try Self.check(rest, "converting the audio", path: path)
        try queue(count: rest)
        try sendWholeFrames(final: true)
        try Self.check(avcodec_send_frame(audioCodec, nil), "finishing the audio", path: path)
        try drain(video: false)
        if holdsAudio, let held = heldAudio, let ac = audioCodec {
            // The last packet ends with the session (its timestamps count the encoder's delay out;
            // WebM's, moved by the pre-skip, count it in, and Matroska's length tag counts it too:
            // 6.5 ms more than the audio decodes to). MP4 takes the delay out with an edit list.
            held.pointee.duration = max(1, audioSamplesTotal + audioShift - held.pointee.pts)
            av_packet_rescale_ts(held, ac.pointee.time_base, audioStream.pointee.time_base)
            holdsAudio = false
            try Self.check(av_interleaved_write_frame(format, held), "writing", path: path)
        }
        guard let ctx = format else { return }
        try Self.check(av_write_trailer(ctx), "writing the trailer", path: path)
        try Self.check(avio_closep(&ctx.pointee.pb), "closing the file", path: path)
    }

    /// Writes every packet the encoder has ready, in the stream's time base.
    private func drain(video: Bool) throws(RenderError) {
        let codec = video ? videoCodec! : audioCodec!
        let stream = video ? videoStream! : audioStream
        guard let pkt = packet else { return }
        while true {
            let code = avcodec_receive_packet(codec, pkt)
            if code == medrender_averror_eagain() || code == medrender_averror_eof() { return }
            try Self.check(code, "encoding", path: path)
            let tb = stream.pointee.time_base
            if video {
                // Every frame lasts 1/fps but the last, which ends where the audio does.
                let pts = pkt.pointee.pts
                let start = av_rescale_q(pts, codec.pointee.time_base, tb)
                let end = pts == lastVideoFrame
                    ? av_rescale_q(totalAudioFrames, AVRational(num: 1, den: Int32(inputRate)), tb)
                    : av_rescale_q(pts + 1, codec.pointee.time_base, tb)
                pkt.pointee.duration = max(1, end - start)
                pkt.pointee.pts = start
                pkt.pointee.dts = av_rescale_q(pkt.pointee.dts, codec.pointee.time_base, tb)
            } else if let held = heldAudio {
                // Held back one packet, in the encoder's time base, until the next shows it was not the last.
                pkt.pointee.stream_index = stream.pointee.index
                pkt.pointee.pts += audioShift
                pkt.pointee.dts += audioShift
                if holdsAudio {
                    av_packet_rescale_ts(held, codec.pointee.time_base, tb)
                    try Self.check(av_interleaved_write_frame(format, held), "writing", path: path)
                }
                av_packet_move_ref(held, pkt)
                holdsAudio = true
                continue
            }
            pkt.pointee.stream_index = stream.pointee.index
            try Self.check(av_interleaved_write_frame(format, pkt), "writing", path: path)
        }
    }

    /// Throws the library's own words for a negative return code.
    @discardableResult
    static func check(_ code: Int32, _ what: String, path: String) throws(RenderError) -> Int32 {
        guard code < 0 else { return code }
        var text = [CChar](repeating: 0, count: 256)
        av_strerror(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let category: ErrorCategory = code == -ENOSPC || code == -EIO ? .io : .cannotCreate
        throw RenderError("\(path): \(what) failed (\(reason))", category: category)
    }
}
