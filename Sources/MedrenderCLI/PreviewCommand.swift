import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// `medrender preview --preset NAME -o session.html`: a page with the audio, the breathing circle
/// in sync with it and the session's timeline, in one file that works offline.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Write a preview page: the audio and a player, the breathing circle in sync, the session's timeline.",
        discussion: """
            The page is one HTML file with the audio inside it (or, with --audio, beside it), and works \
            from file:// with no network. Open it at a given time with '#t=SECONDS'.

            """ + exitCodesHelp)

    @OptionGroup var session: SessionOptions

    @Option(name: .shortAndLong, help: "The page to write (.html).")
    var output: String

    @Option(name: .long, help: "Also write the audio to this file (.ogg, .mp3, .wav, .flac, .opus) and name it in the page instead of embedding it; it must be in the page's folder or below.")
    var audio: String?

    @Option(name: .long, help: "The embedded audio's format: ogg, mp3, wav, flac or opus (mp3 plays in every browser).")
    var format = FormatName.ogg

    @Option(name: .long, parsing: .unconditional, help: "The audio's quality, -1 to 10 as oggenc.")
    var quality: Double = 3

    @Option(name: .long, help: ArgumentHelp("The layers to mix, comma-separated, of: cues, voice, ambience, bells, beats.", valueName: "layer,..."))
    var layers = LayerList()

    var audioOutput: String { audio ?? PreviewWriter.temporaryAudioPath(extension: format.rawValue) }

    func request() throws(ParameterError) -> SessionRequest {
        var p = try session.request()
        p.quality = quality
        p.layers = layers.layers
        p.format = audio == nil ? format : nil
        return p
    }

    func validate() throws {
        try checkPagePath(output, option: "-o")
        if let audio, PreviewWriter.relative(audio, toPageAt: output) == nil {
            throw ValidationError("--audio \(audio): the page names its audio relative to itself; put it in the page's folder (or below), or leave --audio out to embed it")
        }
    }

    func run() throws {
        let audioPath = audioOutput
        defer { if audio == nil { try? FileManager.default.removeItem(atPath: audioPath) } }
        do {
            let library = session.libraries.library()
            var (request, rateNote) = try request().renderRequest(library: library, destination: .file(audioPath))
            request.speechTimeLimitSeconds = session.speech.timeLimitSeconds
            if let rateNote { Console.error("medrender: \(rateNote)\n") }
            let prepared = try Renderer.prepare(request)
            let plan = prepared.plan
            let page = try AtomicOutputFile(path: output)
            let report = try Renderer.render(prepared, to: request.destination)
            for warning in report.warnings { Console.error("medrender: warning: \(warning)\n") }
            try PreviewWriter.writePage(page, plan: plan, session: request.session, report: report, audioPath: audioPath,
                                        format: request.format, embed: audio == nil)
            Console.error("wrote \(output): \(SessionTime(milliseconds: report.frames * 1000 / Int64(report.rate)).clockString), \(report.cycles) cycles\n")
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
    }
}

/// A page or plot path must say what it is: `.html` for a page, `.svg` for a plot.
func checkPagePath(_ path: String, option: String, extensions: [String] = ["html", "htm"]) throws {
    let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
    guard extensions.contains(ext) else {
        throw ValidationError("\(option) \(path): end it in .\(extensions[0]) (the file is \(extensions[0] == "svg" ? "an SVG plot" : "an HTML page"))")
    }
}
