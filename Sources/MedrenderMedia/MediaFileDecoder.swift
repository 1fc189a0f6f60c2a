import CFFmpeg
import Foundation
import MedrenderCore
import MedrenderIO

// M4A/AAC (what phones record voice memos in) through FFmpeg's libavformat and libavcodec: the
// decoder FFmpeg keeps is the reference most players use, maintained release after release, and
// the libraries Debian and the other distributions already ship; libsndfile reads no MP4. It runs
// in medrender-media (`MediaTool.decode`), which medrender reads through `MediaSoundStream`.

/// Checks a libav return code: a negative one becomes an `IOError` of `kind` whose cause is
/// libav's own text. The corresponding C function is `av_strerror`.
@discardableResult
func libavCheck(_ code: Int32, _ message: String, path: String, kind: IOError.Kind = .badData) throws(IOError) -> Int32 {
    guard code < 0 else { return code }
    throw IOError(kind, message, path: path, cause: libavErrorText(code))
}

/// libav's words for a return code.
func libavErrorText(_ code: Int32) -> String {
    var text = [CChar](repeating: 0, count: 256)
    if av_strerror(code, &text, text.count) < 0 { return "libav error \(code)" }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// An open media file (`AVFormatContext`). Not `Sendable`.
final class LibavInput {
    let context: UnsafeMutablePointer<AVFormatContext>

    /// Opens `path` and reads its streams' parameters. The corresponding C functions are
    /// `avformat_open_input` and `avformat_find_stream_info`.
    init(path: String, message: String) throws(IOError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try libavCheck(avformat_open_input(&context, path, nil, nil), message, path: path)
        guard let context else { throw IOError(.library, "libavformat opened no context", path: path) }
        self.context = context
        try libavCheck(avformat_find_stream_info(context, nil), message, path: path)
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&context)
    }

    /// The file's tag `key`, when it has one. The corresponding C function is `av_dict_get`.
    func tag(_ key: String) -> String? {
        guard let entry = av_dict_get(context.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
        return String(cString: value)
    }
}

/// A codec opened to decode one stream (`AVCodecContext`). Not `Sendable`.
final class LibavDecoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// The corresponding C functions are `avcodec_alloc_context3`, `avcodec_parameters_to_context`
    /// and `avcodec_open2`.
    init(codec: UnsafePointer<AVCodec>, parameters: UnsafePointer<AVCodecParameters>, path: String) throws(IOError) {
        guard let context = avcodec_alloc_context3(codec) else { throw IOError(.library, "libavcodec allocated no decoder", path: path) }
        self.context = context
        try libavCheck(avcodec_parameters_to_context(context, parameters), "holds audio libavcodec cannot take", path: path)
        try libavCheck(avcodec_open2(context, codec, nil), "holds audio libavcodec cannot decode", path: path)
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }
}

/// One libav object this code owns (a compressed packet, `AVPacket`, or a decoded frame,
/// `AVFrame`): made by its `_alloc` function, freed by its `_free` function when this goes.
/// Not `Sendable`.
final class LibavOwned<Object> {
    let pointer: UnsafeMutablePointer<Object>
    private let free: (UnsafeMutablePointer<UnsafeMutablePointer<Object>?>) -> Void

    init(_ allocate: () -> UnsafeMutablePointer<Object>?, free: @escaping (UnsafeMutablePointer<UnsafeMutablePointer<Object>?>) -> Void,
         failure: @autoclosure () -> IOError) throws(IOError) {
        guard let pointer = allocate() else { throw failure() }
        self.pointer = pointer
        self.free = free
    }

    deinit {
        var owned: UnsafeMutablePointer<Object>? = pointer
        free(&owned)
    }
}

/// Decodes the first audio stream of an M4A, MP4 or raw AAC (ADTS) file to interleaved Float32
/// frames at the file's own rate, as `SoundFileReader` delivers every other format.
///
/// Not `Sendable`: one decoder belongs to one thread.
final class MediaFileDecoder {
    private let input: LibavInput
    private let decoder: LibavDecoder
    private let packet: LibavOwned<AVPacket>
    private let frame: LibavOwned<AVFrame>
    private let streamIndex: Int32
    let path: String
    /// The stream's sample rate in hertz.
    let rate: Int
    let channels: Int
    /// The frames the container says the stream holds (a hint: a file cut short holds fewer).
    let frameCount: Int64
    /// The container and codec, such as `M4A (AAC)`.
    let formatName: String
    /// The frames to hand out at most: an MP4's edit list gives the exact length (AAC's last
    /// packet is padded to 1024 frames); nil when the container does not say it exactly (ADTS).
    private let exactLength: Int64?
    private var delivered: Int64 = 0
    /// Decoded frames not yet handed out, interleaved, from `pendingStart`.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var sentEnd = false
    private var finished = false

    static let notReadable = "is not a sound file medrender can read (an M4A/AAC file libavformat cannot open)"

    /// libav prints its own complaints on standard error by default; medrender's errors say them
    /// instead (in the cause), so its log is silenced once. The corresponding C function is
    /// `av_log_set_level`.
    private static let silenced: Void = av_log_set_level(AV_LOG_QUIET)

    /// Opens `path` and its first audio stream's decoder.
    init(path: String) throws(IOError) {
        Self.silenced
        self.path = path
        input = try LibavInput(path: path, message: Self.notReadable)
        var codec: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(input.context, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        try libavCheck(index, "holds no audio stream medrender can decode", path: path)
        guard let codec, let stream = input.context.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar else {
            throw IOError(.badData, "holds no audio stream medrender can decode", path: path)
        }
        streamIndex = index
        decoder = try LibavDecoder(codec: codec, parameters: parameters, path: path)
        packet = try LibavOwned(av_packet_alloc, free: av_packet_free,
                                failure: IOError(.library, "libavcodec allocated no packet", path: path))
        frame = try LibavOwned(av_frame_alloc, free: av_frame_free,
                               failure: IOError(.library, "libavutil allocated no frame", path: path))
        rate = Int(decoder.context.pointee.sample_rate)
        channels = Int(decoder.context.pointee.ch_layout.nb_channels)
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration > 0, timeBase.den > 0 {
            frameCount = Int64((Double(stream.pointee.duration) * Double(timeBase.num) * Double(rate) / Double(timeBase.den)).rounded())
        } else if input.context.pointee.duration > 0 {
            frameCount = Int64((Double(input.context.pointee.duration) * Double(rate) / Double(AV_TIME_BASE)).rounded())
        } else {
            frameCount = 0
        }
        let demuxer = input.context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        exactLength = demuxer.contains("mp4") && stream.pointee.duration > 0 ? frameCount : nil
        let container = URL(fileURLWithPath: path).pathExtension.uppercased()
        formatName = "\(container.isEmpty ? "MP4" : container) (\(String(cString: avcodec_get_name(codec.pointee.id)).uppercased()))"
    }

    /// Reads up to `frameCount` frames into `buffer` (interleaved, `channels` wide); returns how
    /// many were read, 0 at the end. The corresponding C functions are `av_read_frame`,
    /// `avcodec_send_packet` and `avcodec_receive_frame`.
    func read(into buffer: UnsafeMutablePointer<Float>, frameCount asked: Int) throws(IOError) -> Int {
        var done = 0
        let wanted = exactLength.map { Int(min(Int64(asked), max(0, $0 - delivered))) } ?? asked
        defer { delivered += Int64(done) }
        while done < wanted {
            let available = (pending.count - pendingStart) / channels
            if available > 0 {
                let take = min(available, wanted - done)
                pending.withUnsafeBufferPointer { p in
                    (buffer + done * channels).update(from: p.baseAddress! + pendingStart, count: take * channels)
                }
                pendingStart += take * channels
                done += take
                continue
            }
            guard try decodeMore() else { break }
        }
        return done
    }

    /// Decodes the next frame into `pending`; false at the end of the stream.
    private func decodeMore() throws(IOError) -> Bool {
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        while !finished {
            let received = avcodec_receive_frame(decoder.context, frame.pointer)
            if received == 0 {
                defer { av_frame_unref(frame.pointer) }
                try append(frame.pointer.pointee)
                if !pending.isEmpty { return true }
                continue
            }
            if received == medrender_averror_eof() {
                finished = true
                break
            }
            guard received == medrender_averror_eagain() else {
                throw IOError(.badData, "could not be decoded", path: path, cause: libavErrorText(received))
            }
            // The decoder wants more: the next packet of the stream, or the end.
            if sentEnd { finished = true; break }
            let read = av_read_frame(input.context, packet.pointer)
            if read < 0 {
                // The end of the file, or a file cut short: what was read is what it holds.
                guard read == medrender_averror_eof() || avio_feof(input.context.pointee.pb) != 0 else {
                    throw IOError(.badData, "could not be read to its end", path: path, cause: libavErrorText(read))
                }
                sentEnd = true
                try libavCheck(avcodec_send_packet(decoder.context, nil), "could not be decoded", path: path)
                continue
            }
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(decoder.context, packet.pointer)
            // A packet the decoder refuses: the file is damaged.
            if sent < 0 && sent != medrender_averror_eagain() {
                throw IOError(.badData, "could not be decoded: it is damaged", path: path, cause: libavErrorText(sent))
            }
        }
        return false
    }

    /// Appends a decoded frame to `pending`, interleaved Float32, whatever the codec's sample format.
    private func append(_ frame: AVFrame) throws(IOError) {
        let count = Int(frame.nb_samples)
        guard count > 0 else { return }
        guard Int(frame.ch_layout.nb_channels) == channels, let data = frame.extended_data else {
            throw IOError(.badData, "changes its channel count midway; medrender reads a fixed count", path: path)
        }
        let format = AVSampleFormat(rawValue: frame.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let packed = av_get_packed_sample_fmt(format)
        let base = pending.count
        pending.append(contentsOf: repeatElement(0, count: count * channels))
        // Each channel's samples: in its own plane (planar), or every `channels`-th in one plane.
        let step = planar ? 1 : channels
        try pending.withUnsafeMutableBufferPointer { (out) throws(IOError) in
            for c in 0..<channels {
                guard let plane = data[planar ? c : 0] else {
                    throw IOError(.badData, "decodes to a frame without its samples", path: path)
                }
                let first = planar ? 0 : c
                let target = out.baseAddress! + base + c
                func convert<T>(_ type: T.Type, _ value: (T) -> Float) {
                    plane.withMemoryRebound(to: T.self, capacity: first + (count - 1) * step + 1) { p in
                        for i in 0..<count { target[i * channels] = value(p[first + i * step]) }
                    }
                }
                switch packed {
                case AV_SAMPLE_FMT_FLT: convert(Float.self) { $0 }
                case AV_SAMPLE_FMT_DBL: convert(Double.self) { Float($0) }
                case AV_SAMPLE_FMT_S16: convert(Int16.self) { Float($0) / 32768 }
                case AV_SAMPLE_FMT_S32: convert(Int32.self) { Float(Double($0) / 2_147_483_648) }
                case AV_SAMPLE_FMT_U8: convert(UInt8.self) { (Float($0) - 128) / 128 }
                default:
                    throw IOError(.badData, "decodes to samples medrender does not take", path: path,
                                  cause: av_get_sample_fmt_name(format).map { String(cString: $0) })
                }
            }
        }
    }

    /// The file's tags, as `SoundFileReader.tags()` names them.
    func tags() -> [(String, String)] {
        ["title", "artist", "album", "date", "comment", "copyright"].compactMap { key in input.tag(key).map { (key, $0) } }
    }
}
