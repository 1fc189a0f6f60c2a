// SPDX-License-Identifier: Apache-2.0
import CFFmpeg
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderVideo
import Synchronization

/// `medrender-media video`: a session's video drawn frame by frame (`FrameDrawer`) and encoded with
/// FFmpeg's libraries (`VideoFileWriter`), from the pictures and the mix medrender sends
/// (`VideoJob` says how).
///
/// Frames are drawn and converted to 4:2:0 on one thread while this one encodes them and the
/// audio, through a ring of four pictures, so memory does not grow with the session. The file is
/// medrender's: it renames it into place once this has succeeded, and removes it otherwise.
enum VideoEncoding {
    /// Pictures in flight between the drawing thread and the encoder.
    static let ringDepth = 4

    /// Writes the video `job` describes, from the pictures on `pictures` and the mix on `audio`;
    /// writes the frames done on `progress`.
    static func run(_ job: VideoJob, pictures: DescriptorReader, audio: DescriptorReader, progress: Int32) throws {
        let settings = job.settings
        let clock = job.clock
        let total = clock.frameCount
        let drawer = try FrameDrawer(size: settings.size, background: settings.background)
        let input = PictureInput(pictures)
        guard let captions = input.captions() else { throw RenderError("the spoken lines did not come before the pictures", category: .io) }
        let writer = try VideoFileWriter(path: job.path, settings: settings, rate: job.rate, channels: job.channels,
                                         totalAudioFrames: job.totalAudioFrames, videoFrames: total, captions: captions)
        let ring = try PictureRing(depth: ringDepth, size: settings.size)
        let mix = MixInput(audio, channels: job.channels)

        try ring.run(frames: total, drawer: drawer, pictures: input) { frame, index in
            try writer.writeVideo(frame, index: index)
            // The audio up to the next frame's start, so the two streams go into the file side by side.
            let until = index + 1 < total ? clock.audioFrame(ofVideoFrame: index + 1) : job.totalAudioFrames
            while mix.framesDone < until, let block = try mix.next() { try writer.writeAudio(block) }
            let line = "\(index + 1)\n"
            guard line.utf8CString.withUnsafeBytes({ DescriptorWriting.writeAll(progress, $0.baseAddress!, count: $0.count - 1) }) else {
                throw RenderError("medrender stopped the video", category: .io)
            }
        }
        while let block = try mix.next() { try writer.writeAudio(block) }
        guard mix.framesDone == job.totalAudioFrames else {
            throw RenderError("the mix ended after \(mix.framesDone) of \(job.totalAudioFrames) frames", category: .io)
        }
        try writer.finish()
    }

    /// Writes the M4A `job` describes from the mix on `audio`.
    static func runM4A(_ job: M4AJob, audio: DescriptorReader) throws {
        let writer = try VideoFileWriter(path: job.path, settings: nil, rate: job.rate, channels: job.channels,
                                         totalAudioFrames: job.totalAudioFrames, videoFrames: 0, metadata: job.tags, chapters: job.chapters)
        let mix = MixInput(audio, channels: job.channels)
        while let block = try mix.next() { try writer.writeAudio(block) }
        guard mix.framesDone == job.totalAudioFrames else {
            throw RenderError("the mix ended after \(mix.framesDone) of \(job.totalAudioFrames) frames", category: .io)
        }
        try writer.finish()
    }
}

/// The mix as medrender sends it: blocks, each a frame count (`UInt32`) and its frames.
/// Not `Sendable`: read on the encoder's thread only.
final class MixInput {
    private let input: DescriptorReader
    private let channels: Int
    private var block: [Float] = []
    private(set) var framesDone: Int64 = 0

    init(_ input: DescriptorReader, channels: Int) {
        self.input = input
        self.channels = channels
    }

    /// The next block; nil at the end of the mix.
    func next() throws(RenderError) -> UnsafeBufferPointer<Float>? {
        var count: UInt32 = 0
        let got = withUnsafeMutableBytes(of: &count) { input.read(into: $0.baseAddress!, count: 4) }
        if got == 0 { return nil }
        guard got == 4, count > 0, count <= 1 << 20 else { throw RenderError("the mix came cut short", category: .io) }
        let samples = Int(count) * channels
        if block.count < samples { block = [Float](repeating: 0, count: samples) }
        let bytes = samples * MemoryLayout<Float>.size
        let read = block.withUnsafeMutableBytes { input.read(into: $0.baseAddress!, count: bytes) }
        guard read == bytes else { throw RenderError("the mix came cut short", category: .io) }
        framesDone += Int64(count)
        return block.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[..<samples]) }
    }
}

/// What each frame shows, as medrender sends it: a `PictureState` a line, in JSON.
// `@unchecked`: read by the drawing thread only, from the moment it is handed over.
final class PictureInput: @unchecked Sendable {
    private let input: DescriptorReader
    private let decoder = JSONDecoder()

    init(_ input: DescriptorReader) { self.input = input }

    /// The spoken lines, which come first; nil when they did not.
    func captions() -> [VideoCaption]? {
        guard let line = input.line(limit: 64 << 20) else { return nil }
        return try? decoder.decode([VideoCaption].self, from: Data(line.utf8))
    }

    /// The next frame's picture; nil when none came.
    func next() -> PictureState? {
        guard let line = input.line(limit: 1 << 20) else { return nil }
        return try? decoder.decode(PictureState.self, from: Data(line.utf8))
    }
}

/// The pictures between the drawing thread and the encoder: `depth` YUV 4:2:0 frames, each drawn
/// and converted on the drawing thread, encoded on the caller's, handed over by a `SlotRing`.
// `@unchecked`: each frame belongs to one thread at a time, as the ring hands it over; the
// failure flag is a Mutex.
final class PictureRing: @unchecked Sendable {
    private let frames: [UnsafeMutablePointer<AVFrame>]
    private let converter: OpaquePointer
    private let size: VideoSize
    /// Why the drawing ended early: a picture that could not be made writable, or none sent.
    private let failed = Mutex<String?>(nil)

    init(depth: Int, size: VideoSize) throws(RenderError) {
        self.size = size
        var made: [UnsafeMutablePointer<AVFrame>] = []
        for _ in 0..<depth {
            guard let frame = av_frame_alloc() else { throw RenderError("out of memory for the pictures", category: .internal) }
            frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            frame.pointee.width = Int32(size.width)
            frame.pointee.height = Int32(size.height)
            made.append(frame)
            try VideoFileWriter.check(av_frame_get_buffer(frame, 0), "allocating a picture", path: "video")
        }
        frames = made
        guard let sws = sws_getContext(Int32(size.width), Int32(size.height), AV_PIX_FMT_BGRA,
                                       Int32(size.width), Int32(size.height), AV_PIX_FMT_YUV420P,
                                       SWS_BILINEAR, nil, nil, nil) else {
            throw RenderError("libswscale cannot convert \(size) pictures", category: .internal)
        }
        converter = sws
    }

    deinit {
        for frame in frames {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
        }
        sws_freeContext(converter)
    }

    /// Draws frames 0..<count on a new thread and calls `encode` here with each, in order. If
    /// `encode` throws, the drawing stops and is joined before the error goes on.
    func run(frames count: Int64, drawer: FrameDrawer, pictures: PictureInput,
             encode: (UnsafeMutablePointer<AVFrame>, Int64) throws -> Void) throws {
        let tools = DrawingTools(drawer: drawer, pictures: pictures)
        let next = Mutex<Int64>(0)
        var encoded: Int64 = 0
        try SlotRing(depth: frames.count).run("medrender video frames", produce: { [self] slot in
            let index = next.withLock { index in
                defer { index += 1 }
                return index
            }
            guard index < count else { return false }
            let frame = frames[slot]
            guard av_frame_make_writable(frame) >= 0 else {
                failed.withLock { $0 = "a picture could not be made writable (out of memory)" }
                return false
            }
            guard let state = tools.pictures.next() else {
                failed.withLock { $0 = "the pictures came cut short, at frame \(index)" }
                return false
            }
            tools.drawer.draw(state)
            convert(tools.drawer, into: frame)
            return true
        }, consume: { slot in
            try encode(frames[slot], encoded)
            encoded += 1
        })
        if let reason = failed.withLock({ $0 }) { throw RenderError(reason, category: .internal) }
    }

    /// The drawer's BGRA picture into `frame`'s planes. The corresponding C function is `sws_scale`.
    private func convert(_ drawer: FrameDrawer, into frame: UnsafeMutablePointer<AVFrame>) {
        var source: [UnsafePointer<UInt8>?] = [UnsafePointer(drawer.pixels), nil, nil, nil]
        var strides: [Int32] = [Int32(drawer.stride), 0, 0, 0]
        withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                withUnsafeMutablePointer(to: &frame.pointee.linesize) { lines in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { linesizes in
                        _ = sws_scale(converter, &source, &strides, 0, Int32(size.height), planes, linesizes)
                    }
                }
            }
        }
    }
}

/// The drawing thread's tools, handed to it once and used by it alone.
// `@unchecked`: the drawer is used by the drawing thread only, from the moment it is handed over.
final class DrawingTools: @unchecked Sendable {
    let drawer: FrameDrawer
    let pictures: PictureInput
    init(drawer: FrameDrawer, pictures: PictureInput) {
        self.drawer = drawer
        self.pictures = pictures
    }
}
