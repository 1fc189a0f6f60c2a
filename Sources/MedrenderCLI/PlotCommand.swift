import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderPreview

/// `medrender plot --preset NAME -o session.svg`: the session's timeline as an SVG.
struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw the session's timeline as SVG: phases, sections, voice, ambience and ducking, bells.",
        discussion: "With --waveform the session is rendered to draw its waveform too.\n\n" + exitCodesHelp)

    @OptionGroup var session: SessionOptions

    @Option(name: .shortAndLong, help: "The plot to write (.svg).")
    var output: String

    @Option(name: .long, help: ArgumentHelp("The layers to plan, comma-separated, of: cues, voice, ambience, bells, beats.", valueName: "layer,..."))
    var layers = LayerList()

    @Option(name: .long, help: "The drawing's width, 600 to 4000 units.")
    var width: Double = 1200

    @Flag(name: .long, help: "Render the session to draw its waveform's envelope (slower).")
    var waveform = false

    func validate() throws {
        try checkPagePath(output, option: "-o", extensions: ["svg"])
        guard width >= 600, width <= 4000 else { throw ValidationError("--width \(width): give 600 to 4000") }
    }

    func run() throws {
        let audioPath = PreviewWriter.temporaryAudioPath(extension: "ogg")
        defer { try? FileManager.default.removeItem(atPath: audioPath) }
        do {
            var p = try session.request()
            p.layers = layers.layers
            p.quality = 0
            let library = session.libraries.library()
            var (request, _) = try p.renderRequest(library: library, destination: .file(audioPath))
            request.speechTimeLimitSeconds = session.speech.timeLimitSeconds
            // Only the waveform needs the audio: the plot alone takes the plan alone.
            let plan: RenderPlan
            var envelope: [Float] = []
            if waveform {
                let prepared = try Renderer.prepare(request)
                plan = prepared.plan
                _ = try Renderer.render(prepared, to: request.destination)
                envelope = try PreviewWriter.envelope(of: audioPath)
            } else {
                plan = try Renderer.check(request)
            }
            let timeline = SessionTimeline(plan: plan, title: request.session.name, envelope: envelope)
            try PreviewWriter.writeText(SessionPlot(timeline: timeline, width: width).svg, to: output)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
    }
}
