import CFFmpeg
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPreview
import Synchronization

/// What a video render wrote.
public struct VideoReport: Sendable, Hashable, Codable {
    public var output: String
    public var width: Int
    public var height: Int
    public var fps: Int
    public var videoFrames: Int64
    /// The audio's frames at `rate`: the session's length, which the video's equals.
    public var audioFrames: Int64
    public var rate: Int
    public var durationSeconds: Double
    /// The loudness gain of the mix, in dB, as the audio render applies it.
    public var gainDecibels: Double
}

/// A session's video: the breathing circle drawn frame by frame (`FrameDrawer`, `BreathingPicture`)
/// over the session's own mix (`MasterStream`), encoded with FFmpeg's libraries (`VideoFileWriter`).
///
/// Frames are drawn and converted to 4:2:0 on one thread while this one encodes them and the
/// audio, through a ring of four pictures, so memory does not grow with the session. The file is
/// written beside its place and renamed into it once complete (`AtomicOutputFile`): a failed or
/// interrupted render leaves nothing and never touches a file already there.
public enum VideoRender {
    /// Pictures in flight between the drawing thread and the encoder.
    static let ringDepth = 4

    /// The codec headroom under the true-peak ceiling, in dB, as a lossy audio render keeps it.
    static func headroomDecibels(_ container: VideoContainer, rate: Int) -> Double {
        switch container {
        case .mp4: rate <= 16000 ? 1.5 : 1.0
        case .webm: rate <= 16000 ? 1.0 : 0.6
        }
    }

    /// The sample rates AAC carries (MPEG-4 audio's table). WebM's Opus is resampled to 48 kHz, so
    /// it takes any rate.
    public static let aacRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// Checks everything that can be checked before the render: the settings, the output's
    /// extension, the background image and, once the session's `rate` is known, that the
    /// container's audio can carry it. Throws the one-line error.
    public static func check(settings: VideoSettings, output path: String, rate: Int? = nil) throws {
        try settings.validate()
        if let rate, settings.container == .mp4, !aacRates.contains(rate) {
            throw ParameterError("rate", value: "\(rate)", "cannot be carried by AAC in an MP4; give one of "
                                 + aacRates.map(String.init).joined(separator: ", ") + " Hz, or write a .webm (Opus takes any rate)")
        }
        let container = try VideoSettings.container(for: path)
        guard container == settings.container else {
            throw RenderError("-o \(path) ends in .\(container.rawValue) but the video is \(settings.container.rawValue); make them agree",
                             category: .usage)
        }
        if case .image(let image) = settings.background { _ = try FrameDrawer.loadImage(image) }
    }

    /// Renders `prepared` as a video to `path`. `progress` gets the video frames done and the
    /// total; what it throws stops the render (a client that left), and no file is written.
    public static func write(_ prepared: PreparedRender, settings: VideoSettings, to path: String,
                             progress: ((Int64, Int64) throws -> Void)? = nil) throws -> VideoReport {
        let plan = prepared.plan
        try check(settings: settings, output: path, rate: plan.rate)
        let timeline = SessionTimeline(plan: plan, title: prepared.tags.title)
        let picture = BreathingPicture(timeline: timeline, fps: settings.fps, words: prepared.job.session.language.words)
        let drawer = try FrameDrawer(size: settings.size, background: settings.background)
        let file = try AtomicOutputFile(path: path)
        let master = MasterStream(prepared, headroomDecibels: headroomDecibels(settings.container, rate: plan.rate))
        let total = picture.clock.frameCount
        let writer = try VideoFileWriter(path: file.temporaryPath, settings: settings, rate: plan.rate, channels: plan.channels,
                                         totalAudioFrames: plan.totalFrames, videoFrames: total)
        let ring = try PictureRing(depth: ringDepth, size: settings.size)

        try ring.run(frames: total, drawer: drawer, picture: picture) { frame, index in
            try writer.writeVideo(frame, index: index)
            // The audio up to the next frame's start, so the two streams go into the file side by side.
            let until = index + 1 < total ? picture.clock.audioFrame(ofVideoFrame: index + 1) : plan.totalFrames
            while master.framesDone < until, let block = master.next() { try writer.writeAudio(block) }
            try progress?(index + 1, total)
        }
        while let block = master.next() { try writer.writeAudio(block) }
        try writer.finish()
        do {
            try file.commit()
        } catch {
            throw RenderError("\(path): \(error)", category: .io)
        }
        return VideoReport(output: path, width: settings.size.width, height: settings.size.height, fps: settings.fps,
                           videoFrames: total, audioFrames: plan.totalFrames, rate: plan.rate,
                           durationSeconds: Double(plan.totalFrames) / Double(plan.rate), gainDecibels: master.gainDecibels)
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
    /// Set when a picture could not be made writable: the drawing ends there.
    private let failed = Mutex(false)

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
    func run(frames count: Int64, drawer: FrameDrawer, picture: BreathingPicture,
             encode: (UnsafeMutablePointer<AVFrame>, Int64) throws -> Void) throws {
        let tools = DrawingTools(drawer: drawer, picture: picture)
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
                failed.withLock { $0 = true }
                return false
            }
            tools.drawer.draw(tools.picture.state(ofFrame: index))
            convert(tools.drawer, into: frame)
            return true
        }, consume: { slot in
            try encode(frames[slot], encoded)
            encoded += 1
        })
        if failed.withLock({ $0 }) { throw RenderError("a picture could not be made writable (out of memory)", category: .internal) }
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
    let picture: BreathingPicture
    init(drawer: FrameDrawer, picture: BreathingPicture) {
        self.drawer = drawer
        self.picture = picture
    }
}
