// SPDX-License-Identifier: Apache-2.0
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPreview
import Synchronization

/// A session's video: the breathing circle frame by frame (`BreathingPicture`) over the session's
/// own mix (`MasterStream`), drawn with Cairo and Pango and encoded with FFmpeg's libraries by
/// `medrender-media` (`MediaProgram`), so that medrender itself loads none of them.
///
/// This process mixes the session and works out what each frame shows, and sends both to the
/// program as it asks for them (`VideoJob`), on two threads of its own, while this one follows
/// the frames done; memory does not grow with the session. The file is written beside its place
/// and renamed into it once complete (`AtomicOutputFile`): a failed or interrupted render leaves
/// nothing and never touches a file already there.
public enum VideoRender {
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
        if case .image(let image) = settings.background, let failure = try MediaProgram.run(["check-image", image]) {
            throw Self.error(failure)
        }
    }

    /// Checks what `check` does, but the background image (medrender-media reads it first).
    static func checkSettings(_ settings: VideoSettings, output path: String, rate: Int) throws {
        try check(settings: VideoSettings(container: settings.container, size: settings.size, fps: settings.fps), output: path, rate: rate)
    }

    /// A failure of medrender-media's as the error it was there.
    static func error(_ failure: MediaFailure) -> any Error {
        failure.kind == nil ? RenderError(failure.message, category: failure.category) : failure.ioError
    }

    /// Renders `prepared` as a video to `path`. `progress` gets the video frames done and the
    /// total; what it throws stops the render (a client that left), and no file is written.
    public static func write(_ prepared: PreparedRender, settings: VideoSettings, to path: String,
                             progress: ((Int64, Int64) throws -> Void)? = nil) throws -> VideoReport {
        let plan = prepared.plan
        try checkSettings(settings, output: path, rate: plan.rate)
        let timeline = SessionTimeline(plan: plan, title: prepared.tags.title)
        let captions = VideoCaption.spoken(in: plan)
        let picture = BreathingPicture(timeline: timeline, fps: settings.fps, words: prepared.job.session.language.words, captions: captions)
        let file = try AtomicOutputFile(path: path)
        let master = MasterStream(prepared, headroomDecibels: headroomDecibels(settings.container, rate: plan.rate))
        let total = picture.clock.frameCount
        let job = VideoJob(settings: settings, plan: plan, path: file.temporaryPath)
        try MediaRun.run("video", job, master: master, channels: plan.channels, lines: { send in
            // The spoken lines first, for the subtitle track, then each frame's picture.
            var sending = send(captions)
            var frame: Int64 = 0
            while sending, frame < total {
                sending = send(picture.state(ofFrame: frame))
                frame += 1
            }
        }, progress: { frames in try progress?(frames, total) })
        try MediaRun.commit(file, path: path)
        return VideoReport(output: path, width: settings.size.width, height: settings.size.height, fps: settings.fps,
                           videoFrames: total, audioFrames: plan.totalFrames, rate: plan.rate,
                           durationSeconds: Double(plan.totalFrames) / Double(plan.rate), gainDecibels: master.gainDecibels)
    }
}

/// One run of `medrender-media` on a job, which is its argument in JSON: the mix fed on its
/// standard input (`MasterStream`'s blocks, each a frame count and its frames), lines of JSON on
/// descriptor 3 when `lines` sends any, the numbers it writes on its standard output given to
/// `progress`; the two feeds on threads of their own, joined before the run returns.
enum MediaRun {
    /// Runs `command` on `job`. A failure of the program is thrown as the error it was there;
    /// what `progress` throws stops the program and is thrown.
    static func run(_ command: String, _ job: some Encodable, master: MasterStream, channels: Int,
                    lines: (@Sendable (_ send: (any Encodable) -> Bool) -> Void)? = nil,
                    progress: ((Int64) throws -> Void)? = nil) throws {
        let program = try MediaProgram.path()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let argument = String(decoding: try encoder.encode(job), as: UTF8.self)
        // The mix and the lines go on sockets (a write to a program that has ended is an error,
        // not a SIGPIPE); what is done comes back on a pipe.
        let audio = try socketPair()
        defer { close(audio.parent) }
        let pictures: (parent: Int32, program: Int32)
        do { pictures = try socketPair() } catch { close(audio.program); throw error }
        defer { close(pictures.parent) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(audio.program); close(pictures.program)
            throw RenderError("no pipe for \(MediaProgram.name): \(String(cString: strerror(errno)))", category: .io)
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let done = DescriptorReader(descriptor: ends[0])
        let process: ProcessGroup
        do {
            defer { close(audio.program); close(pictures.program); close(ends[1]) }
            process = try ProcessGroup(executable: program, arguments: [command, argument],
                                       descriptors: [0: audio.program, 1: ends[1], VideoJob.pictureDescriptor: pictures.program])
        }
        let feeds = Feeds()
        feedMix(master, channels: channels, to: audio.parent, feeds: feeds)
        let lineDescriptor = pictures.parent
        feeds.start("medrender media lines") {
            let encoder = JSONEncoder()
            lines? { value in
                guard let data = try? encoder.encode(value) else { return false }
                let line = data + Data([0x0A])
                return line.withUnsafeBytes { DescriptorWriting.writeAll(lineDescriptor, $0.baseAddress!, count: $0.count, socket: true) }
            }
            shutdown(lineDescriptor, Int32(SHUT_WR))
        }

        // What is done, as the program writes it, until it ends or `progress` stops it.
        var stop: (any Error)?
        while let line = done.line(limit: 64) {
            guard let frames = Int64(line) else { continue }
            do {
                try progress?(frames)
            } catch {
                stop = error
                break
            }
        }
        let ending = stop == nil ? process.wait(limitSeconds: 1e9) { false } : process.wait(limitSeconds: 0) { true }
        // The program has ended: the feeds find their sockets closed, and end too.
        shutdown(audio.parent, Int32(SHUT_RDWR))
        shutdown(pictures.parent, Int32(SHUT_RDWR))
        feeds.join()
        if let stop { throw stop }
        guard ending == .exited(0) else {
            throw VideoRender.error(MediaProgram.failure(ending, errorText: String(decoding: process.errorTail.bytes, as: UTF8.self), program: program))
        }
    }

    /// Feeds `master`'s blocks to `descriptor` on a thread of `feeds`.
    private static func feedMix(_ master: MasterStream, channels: Int, to descriptor: Int32, feeds: Feeds) {
        let mixFeed = Unshared(master)
        feeds.start("medrender media mix") {
            let master = mixFeed.value
            while let block = master.next() {
                var count = UInt32(block.count / channels)
                guard withUnsafeBytes(of: &count, { DescriptorWriting.writeAll(descriptor, $0.baseAddress!, count: 4, socket: true) }),
                      DescriptorWriting.writeAll(descriptor, UnsafeRawPointer(block.baseAddress!),
                                                 count: block.count * MemoryLayout<Float>.size, socket: true) else { break }
            }
            shutdown(descriptor, Int32(SHUT_WR))
        }
    }

    /// Renames the program's file into place.
    static func commit(_ file: AtomicOutputFile, path: String) throws {
        do {
            try file.commit()
        } catch {
            throw RenderError("\(path): \(error)", category: .io)
        }
    }

    /// A connected pair of sockets: this process's end and the program's, each closed on `exec`.
    private static func socketPair() throws(RenderError) -> (parent: Int32, program: Int32) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw RenderError("no socket for \(MediaProgram.name): \(String(cString: strerror(errno)))", category: .io)
        }
        return (pair[0], pair[1])
    }
}

/// The threads that feed medrender-media, joined before the render returns.
private final class Feeds: Sendable {
    private let ended = DispatchSemaphore(value: 0)
    private let count = Mutex(0)

    func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        count.withLock { $0 += 1 }
        BlockingWork.start(name) { [ended] in
            body()
            ended.signal()
        }
    }

    func join() {
        for _ in 0..<count.withLock({ $0 }) { ended.wait() }
    }
}

/// A value handed to one other thread, which alone uses it from then on.
// `@unchecked`: the thread that makes it does not touch the value after handing it over.
private final class Unshared<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
