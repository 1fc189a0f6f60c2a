import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderVideo
import Synchronization

/// `medrender [render] --preset NAME --minutes M -o FILE`: renders a session to a file.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a session to an audio file (the default command).",
        discussion: """
            The format comes from the output's extension (.ogg, .wav, .flac, .opus, .mp3) or --format. \
            '-o -' writes to standard output\
            (OGG at 44.1 kHz and up and WAV stream as they render; the others follow when done).

            """ + exitCodesHelp)

    @OptionGroup var session: SessionOptions

    @OptionGroup var encoding: EncodingOptions

    @Option(name: .shortAndLong, help: "The file to write (.ogg, .wav, .flac, .opus, .mp3, or .m4a: AAC with chapters), or - for standard output.",
            completion: .file(extensions: ["ogg", "wav", "flac", "opus", "mp3", "m4a"]))
    var output: String

    @Option(name: .long, help: "The format, when the extension does not say: ogg, wav, flac, opus, mp3.")
    var format: FormatName?

    @Option(name: .long, help: "Title tag (default: the preset's).")
    var title: String?

    @Option(name: .long, help: "Artist tag.")
    var artist: String?

    @Option(name: .long, help: "Album tag.")
    var album: String?

    @Option(name: .long, help: "Date tag, such as 2026-05-01 (default: the preset's).")
    var date: String?

    @Option(name: .long, help: "Comment tag (default: the preset's description).")
    var comment: String?

    @Option(name: .long, help: "A cover image (.png or .jpg) for MP3, FLAC, OGG and Opus (WAV holds none). Default: the preset's.",
            completion: .file(extensions: ["png", "jpg", "jpeg"]))
    var cover: String?



    @Option(name: .long, help: ArgumentHelp("The layers to mix, comma-separated, of: cues, voice, ambience, bells, beats.", valueName: "layer,..."),
            completion: .list(["cues", "voice", "ambience", "bells", "beats", "cues,voice", "cues,ambience", "voice,ambience"]))
    var layers = LayerList()

    @Option(name: .long, help: "Also write the cue sheet to this file: .json, .vtt or .txt.", completion: .file(extensions: ["json", "vtt", "txt"]))
    var cues: String?

    @Option(name: .long, parsing: .unconditional, help: "Integrated loudness target in LUFS, -70 to -5. Default: the preset's (-18).")
    var loudness: Double?

    @Option(name: .customLong("true-peak"), parsing: .unconditional, help: "True-peak ceiling in dBTP, -20 to 0. Default: the preset's (-1).")
    var truePeak: Double?

    @Option(name: .long, help: "Also write each layer (cues, voice, ambience, bells, beats) to this folder, aligned to the mix.", completion: .directory)
    var stems: String?

    @Option(name: .long, help: "'stock': replace a missing sound by the bundled sound of the same role (ambience, voice, bell), with a warning.")
    var fallback: String?

    @Flag(name: .long, help: "Print the render report as JSON.")
    var json = false

    @Option(name: .long, help: "Cores to keep busy, 1 to 1024 (default: every core): an OGG is encoded in pieces on this many at once, the same bytes for any number. 1 encodes it by one encoder, with no work spent on pieces, as a build's renders are (other bytes, as valid).")
    var threads: Int?

    @Option(name: .long, help: "Also write a preview page (.html): a player, the breathing circle in sync, the timeline. It names the audio file when that is in its folder, else holds a copy.")
    var preview: String?

    @Option(name: .long, help: "Also write the session's video (.mp4 or .webm): the breathing circle over this render's mix (see 'medrender video').",
            completion: .file(extensions: ["mp4", "webm"]))
    var video: String?

    @OptionGroup var picture: VideoPictureOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Render only from this point of the session, at the whole session's loudness: seconds (90), M:SS or H:MM:SS, as 'sox trim'.",
                                            valueName: "time"))
    var start: ClockArgument?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Render only up to this point of the session (with or without --start), in the same form.", valueName: "time"))
    var end: ClockArgument?

    /// Every option as the library takes them.
    func request() throws(ParameterError) -> SessionRequest {
        var p = encoding.request(into: try session.request())
        p.format = format
        p.layers = layers.layers
        p.loudness = loudness
        p.truePeak = truePeak
        p.title = title
        p.artist = artist
        p.album = album
        p.date = date
        p.comment = comment
        p.cover = cover.map { URL(fileURLWithPath: $0) }
        p.stockFallback = fallback == "stock"
        p.part = try SessionPart.seconds(start: start?.seconds, end: end?.seconds)
        return p
    }

    func validate() throws {
        try asValidation { try RequestLimits.threads.check(threads) }
        if M4ARender.names(output) {
            let refused = [("--format", format.map { _ in "" }), ("--stems", stems), ("--preview", preview),
                           ("--start", start.map { _ in "" }), ("--end", end.map { _ in "" })]
            if let option = refused.first(where: { $0.1 != nil })?.0 {
                throw ValidationError("\(option) does not go with an .m4a output; render to .wav, .ogg, .flac, .opus or .mp3 for it")
            }
        }
        if let fallback, fallback != "stock" {
            throw ValidationError("--fallback \(fallback): the one fallback is 'stock'")
        }
        if let cues, CueSheetFormat.forPath(cues) == nil {
            throw ValidationError("--cues: cannot tell the format of '\(cues)'; end it in .json, .vtt or .txt")
        }
        if let preview {
            try checkPagePath(preview, option: "--preview")
            if output == "-" { throw ValidationError("--preview needs the audio in a file; give -o a file name") }
            if FilePaths.resolved(preview) == FilePaths.resolved(output) {
                throw ValidationError("--preview \(preview) is the audio output too; give the page a name of its own")
            }
        }
        if let video {
            _ = try picture.validated(output: video, option: "--video")
            if FilePaths.resolved(video) == FilePaths.resolved(output) {
                throw ValidationError("--video \(video) is the audio output too; give the video a name of its own")
            }
        }
        if let cues, FilePaths.resolved(cues) == FilePaths.resolved(output) {
            throw ValidationError("--cues \(cues) is the audio output too; give the cue sheet a name of its own")
        }
        if start != nil || end != nil, let whole = [("--cues", cues), ("--stems", stems), ("--preview", preview), ("--video", video)].first(where: { $0.1 != nil }) {
            throw ValidationError("\(whole.0) is of the whole session, and --start and --end render a part of it; write it in a render of the whole")
        }
    }

    func run() throws {
        // The folders made for the stems, removed again (when still empty) if the render fails.
        var madeFolders: [String] = []
        do {
            if let stems {
                madeFolders = try StemsFolder.create(stems)
                // An interrupt removes them too, as an ordinary failure does.
                TemporaryFiles.registerFolders(madeFolders)
            }
            defer { TemporaryFiles.unregisterFolders(madeFolders) }
            let library = session.libraries.library()
            var (request, rateNote) = try renderRequest(library: library)
            if let rateNote { Console.error("medrender: \(rateNote)\n") }
            if M4ARender.names(output) { return try renderM4A(request) }
            // The page draws the waveform as it was written, not decoded again.
            if preview != nil { request.waveforms = WaveformStore() }
            let bar = ProgressBar(enabled: Console.errorIsTerminal && !json)
            // Prepared once: the page's plan is the render's, and no sound is decoded twice.
            let prepared = try Renderer.prepare(request)
            // The video's settings and background are checked before any file is written.
            let videoSettings = try video.map { try picture.settings(output: $0, option: "--video") }
            if let video, let videoSettings { try VideoRender.check(settings: videoSettings, output: video, rate: prepared.plan.rate) }
            let page = try preview.map { try AtomicOutputFile(path: $0) }
            let report = try Renderer.render(prepared, to: request.destination) { bar.update($0) }
            bar.finish()
            if let video, let videoSettings {
                let made = try VideoRender.write(prepared, settings: videoSettings, to: video)
                if !json { try VideoCommand.say(made, json: false) }
            }
            if let page {
                try PreviewWriter.writePage(page, plan: prepared.plan, session: request.session, report: report, audioPath: output,
                                            format: request.format, embed: false, waveform: request.waveforms?.peaks(for: output))
            }
            // What fitting a shorter session changed, as the render's plan says it.
            for change in prepared.plan.fitChanges {
                Console.error("medrender: note: \(change)\n")
            }
            for warning in report.warnings {
                Console.error("medrender: warning: \(warning)\n")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let text = String(data: try encoder.encode(report), encoding: .utf8)! + "\n"
                // With the audio on standard output, the report goes to standard error.
                if output == "-" { Console.error(text) } else { try Console.output(text) }
            } else {
                Console.error(ReportText.describe(report))
            }
        } catch let error as ValidationError {
            StemsFolder.removeEmpty(madeFolders)
            throw error
        } catch {
            StemsFolder.removeEmpty(madeFolders)
            throw fail(error)
        }
    }
}

/// The `--stems` folder: made with its parents when missing, as `build -o` makes its folder.
enum StemsFolder {
    /// Makes `path` and any missing parent; returns the folders it made, deepest first.
    static func create(_ path: String) throws(RenderError) -> [String] {
        let fm = FileManager.default
        var missing: [String] = []
        var url = URL(fileURLWithPath: path).standardized
        while url.path != "/" {
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw RenderError("--stems \(path): \(url.path) is a file, not a folder; give --stems a folder",
                                      category: .cannotCreate)
                }
                break
            }
            missing.append(url.path)
            url.deleteLastPathComponent()
        }
        for (index, folder) in missing.enumerated().reversed() where mkdir(folder, 0o777) != 0 && errno != EEXIST {
            let reason = String(cString: strerror(errno))
            removeEmpty(Array(missing[(index + 1)...]))
            throw RenderError("--stems \(path): \(folder) cannot be created (\(reason)); give a folder you can write to",
                              category: .cannotCreate)
        }
        return missing
    }

    /// Removes the folders `create` made, deepest first, while they are empty.
    static func removeEmpty(_ folders: [String]) {
        for folder in folders where rmdir(folder) != 0 { break }
    }
}

enum ReportText {
    static func describe(_ report: RenderReport) -> String {
        let duration = SessionTime(milliseconds: report.frames * 1000 / Int64(report.rate)).clockString
        var text = "wrote \(report.output): \(duration), \(report.frames) frames at \(report.rate) Hz, \(report.cycles) cycles"
        if let loudness = report.loudnessLUFS { text += String(format: ", %.1f LUFS", loudness) }
        if let speech = report.speechLoudnessLUFS { text += String(format: " (the voice %.1f LUFS)", speech) }
        if let range = report.loudnessRangeLU { text += String(format: ", LRA %.1f LU", range) }
        if let peak = report.truePeakDBTP { text += String(format: ", true peak %.1f dBTP", peak) }
        text += String(format: ", gain %+.1f dB", report.gainDecibels)
        if let voice = report.voice { text += ", spoken by \(voice)" }
        for stem in report.stems { text += "\n  stem \(stem)" }
        return text + "\n"
    }
}

/// A progress bar on stderr, only when stderr is a terminal.
final class ProgressBar: Sendable {
    let enabled: Bool
    let started = Date()
    /// When it was last drawn, and the fraction it showed.
    private let drawn = Mutex((at: Date.distantPast, fraction: 0.0))

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: RenderProgress) {
        guard enabled else { return }
        let now = Date()
        // Weighed by what each pass costs; it never goes back (a lossy file written again after
        // its check stays where the check left it).
        let shown = drawn.withLock { drawn -> Double? in
            guard now.timeIntervalSince(drawn.at) >= 0.1 || progress.framesDone == progress.totalFrames else { return nil }
            drawn = (now, max(drawn.fraction, progress.fraction))
            return drawn.fraction
        }
        guard let fraction = shown else { return }
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = now.timeIntervalSince(started)
        let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
        let line = String(format: "\r[%@%@] %3d%%  %@  %.1fs elapsed, %.1fs left ",
                          String(repeating: "#", count: filled), String(repeating: ".", count: width - filled),
                          Int(fraction * 100), progress.pass == 1 ? "measuring" : progress.pass == 2 ? "writing  " : "checking ", elapsed, eta)
        Console.error(line)
    }

    func finish() {
        guard enabled else { return }
        Console.error("\r\u{1B}[K")
    }
}

extension RenderCommand {
    /// The request of the options given, for `library`; an M4A's is for the mix itself, which is
    /// sent to medrender-media as floats.
    func renderRequest(library: PresetLibrary) throws -> (RenderRequest, String?) {
        var options = try request()
        if M4ARender.names(output) { options.format = .wav }
        var (request, rateNote) = try options.renderRequest(library: library, destination: RenderDestination(commandLine: output))
        request.stemsDirectory = stems
        request.cueSheetPaths = cues.map { [$0] } ?? []
        request.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        // Pieces unless one core is asked for: the default's bytes are the same on every machine.
        request.oggInPieces = threads.map { $0 > 1 } ?? true
        request.speechTimeLimitSeconds = session.speech.timeLimitSeconds
        return (request, rateNote)
    }

    /// `-o FILE.m4a`: the session's mix as AAC in an M4A (written by medrender-media), with its
    /// cue sheets and video when asked.
    func renderM4A(_ request: RenderRequest) throws {
        try M4ARender.check(rate: request.options.rate)
        let prepared = try Renderer.prepare(request)
        for warning in prepared.warnings { Console.error("medrender: warning: \(warning)\n") }
        let videoSettings = try video.map { try picture.settings(output: $0, option: "--video") }
        if let video, let videoSettings { try VideoRender.check(settings: videoSettings, output: video, rate: prepared.plan.rate) }
        // The video is made before the M4A is put in place: if it fails, the M4A is left as it was.
        let report = try M4ARender.write(prepared, to: output, cueSheets: request.cueSheetPaths) { [json] in
            if let video, let videoSettings {
                let made = try VideoRender.write(prepared, settings: videoSettings, to: video)
                if !json { try VideoCommand.say(made, json: false) }
            }
        }
        if json {
            try Console.outputJSON(report)
        } else {
            let duration = SessionTime(milliseconds: report.audioFrames * 1000 / Int64(report.rate)).clockString
            Console.error("wrote \(report.output): \(duration), AAC at \(report.rate) Hz, \(report.channels) channels, "
                + "\(report.chapters) chapters, gain \(String(format: "%+.1f", report.gainDecibels)) dB\n")
        }
    }
}
