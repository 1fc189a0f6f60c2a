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

    @Option(name: .shortAndLong, help: "The cue sheet to write: .json, .vtt (WebVTT captions) or .txt (Audacity labels).")
    var output: String

    func validate() throws {
        guard CueSheetFormat.forPath(output) != nil else {
            throw ValidationError("cannot tell the cue sheet format of '\(output)'; end it in .json, .vtt or .txt")
        }
    }

    func run() throws {
        do {
            let (sessionValue, file, library, length) = try session.load()
            if FilePaths.resolved(file) == FilePaths.resolved(output) {
                throw RenderError("\(file): the preset is the output file \(output); write the cue sheet elsewhere", category: .usage)
            }
            let request = RenderRequest(session: sessionValue, presetFile: file,
                                        options: RenderOptions(rate: session.rate, length: length),
                                        format: .ogg(quality: 4), outputPath: output, library: library)
            // The plan a render would make, sounds and all: no sheet for a session that cannot be rendered.
            try CueSheetWriter.write(try Renderer.check(request), to: output)
        } catch {
            throw fail(error)
        }
    }
}
