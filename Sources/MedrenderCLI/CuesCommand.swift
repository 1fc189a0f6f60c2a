import ArgumentParser
import Foundation
import Medrender
import MedrenderIO
import MedrenderCore

/// `medrender cues --preset … -o FILE.json`: the cue sheet alone, no audio.
struct CuesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cues", abstract: "Write the cue sheet alone (.json, .vtt or .txt), without rendering audio.", discussion: exitCodesHelp)

    @OptionGroup var session: SessionOptions

    @Option(name: .shortAndLong, help: "The cue sheet to write: .json, .vtt (WebVTT captions) or .txt (Audacity labels); - for standard output.")
    var output: String

    @Option(help: "json, vtt or txt, when the output's name does not say (standard output: json).")
    var format: CueSheetFormat?

    /// Whether the sheet goes to standard output: `-`, or `/dev/stdout` (written to the descriptor
    /// itself, so a redirected standard output keeps its place, as a render's does).
    var toStandardOutput: Bool { output == "-" || output == "/dev/stdout" }

    /// The format asked for: `--format`, else the output's extension, else JSON on standard output.
    var sheetFormat: CueSheetFormat? {
        if let format { return format }
        return toStandardOutput ? .json : CueSheetFormat.forPath(output)
    }

    func validate() throws {
        guard let chosen = sheetFormat else {
            throw ValidationError("cannot tell the cue sheet format of '\(output)'; end it in .json, .vtt or .txt, or give --format")
        }
        if !toStandardOutput, let named = CueSheetFormat.forPath(output), named != chosen {
            throw ValidationError("'\(output)' says \(named.rawValue) but --format says \(chosen.rawValue); make them agree")
        }
    }

    func run() throws {
        do {
            let (sessionValue, file, library, length) = try session.load()
            if FilePaths.resolved(file) == FilePaths.resolved(output) {
                throw RenderError("\(file): the preset is the output file \(output); write the cue sheet elsewhere", category: .usage)
            }
            var request = RenderRequest(session: sessionValue, presetFile: file,
                                        options: RenderOptions(rate: session.rate.hertz, length: length),
                                        format: .ogg(quality: 4), destination: toStandardOutput ? .standardOutput : .file(output), library: library)
            request.speechTimeLimitSeconds = session.speech.timeLimitSeconds
            // The plan a render would make, sounds and all: no sheet for a session that cannot be rendered.
            let plan = try Renderer.check(request)
            // What the fit changed or left out, as a render of the same session says it.
            for change in plan.fitChanges { Console.error("medrender: note: \(change)\n") }
            for note in plan.notes { Console.error("medrender: warning: \(note)\n") }
            if toStandardOutput {
                try Console.output(CueSheetWriter.text(plan, format: sheetFormat ?? .json))
            } else {
                try CueSheetWriter.write(plan, to: output, format: sheetFormat)
            }
        } catch {
            throw fail(error)
        }
    }
}
