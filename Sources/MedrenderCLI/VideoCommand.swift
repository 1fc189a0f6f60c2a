import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderVideo

/// The picture's options, shared by `video` and `render --video`.
struct VideoPictureOptions: ParsableArguments {
    @Option(name: .long, help: "The video's size: 720p (default), 1080p, square (1080x1080), vertical (1080x1920) or WIDTHxHEIGHT, 128 to 3840 px, even.",
            completion: .list(["720p", "1080p", "square", "vertical"]))
    var size: String = "720p"

    @Option(name: .long, help: "The video's frames per second, 1 to 60.")
    var fps: Int = 30

    @Option(name: .long, help: "Behind the circle: #rrggbb, #rrggbb-#rrggbb (a gradient, top to bottom) or a PNG image, blurred. Default: a dusk gradient.")
    var background: String?

    /// The settings for a video written to `output`, or the one-line usage error.
    func settings(output: String, option: String) throws -> VideoSettings {
        let container = try VideoSettings.container(for: output, option: option)
        var settings = VideoSettings(container: container, size: try VideoSize.parse(size), fps: fps)
        if let background { settings.background = try VideoBackground.parse(background) }
        try settings.validate()
        return settings
    }

    /// The same, with a usage error as the parser's.
    func validated(output: String, option: String) throws -> VideoSettings {
        do {
            return try settings(output: output, option: option)
        } catch let error as RenderError where error.category == .usage {
            throw ValidationError(error.description)
        }
    }
}

/// `medrender video --preset NAME --minutes M -o session.mp4`: the session's video.
struct VideoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Render a session as a video: the breathing circle over the session's audio (.mp4 or .webm).",
        discussion: """
            MP4 holds H.264 and AAC; WebM holds VP9 and Opus. The audio is the mix an audio render of the \
            session makes; the circle grows on the inhale and shrinks on the exhale as the preview page's does, \
            frame-exact on the audio's clock.

            """ + exitCodesHelp)

    @OptionGroup var session: SessionOptions

    @OptionGroup var picture: VideoPictureOptions

    @Option(name: .shortAndLong, help: "The video to write: .mp4 or .webm.", completion: .file(extensions: ["mp4", "webm"]))
    var output: String

    @Option(name: .long, help: "Audio channels, 1 or 2.")
    var channels: Int = 2

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        _ = try picture.validated(output: output, option: "-o")
    }

    func run() throws {
        do {
            let settings = try picture.settings(output: output, option: "-o")
            try VideoRender.check(settings: settings, output: output)
            var p = try session.request()
            p.format = .wav
            p.channels = channels
            var (request, _) = try p.renderRequest(library: session.libraries.library(), destination: .file(output))
            request.speechTimeLimitSeconds = session.speech.timeLimitSeconds
            let prepared = try Renderer.prepare(request)
            for warning in prepared.warnings { Console.error("medrender: warning: \(warning)\n") }
            let report = try VideoRender.write(prepared, settings: settings, to: output)
            try VideoCommand.say(report, json: json)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
    }

    /// The report on standard error, or as JSON on standard output.
    static func say(_ report: VideoReport, json: Bool) throws {
        if json {
            try Console.outputJSON(report)
        } else {
            let duration = SessionTime(milliseconds: report.audioFrames * 1000 / Int64(report.rate)).clockString
            Console.error("wrote \(report.output): \(duration), \(report.width)x\(report.height) at \(report.fps) fps, "
                + "\(report.videoFrames) frames, audio \(report.audioFrames) frames at \(report.rate) Hz\n")
        }
    }
}
