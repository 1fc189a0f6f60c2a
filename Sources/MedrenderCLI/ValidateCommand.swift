import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets

/// `medrender validate FILE…`: checks presets without rendering.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check presets without rendering: fields, ranges, sounds and the schedule. Exit 65 on a bad preset.",
        discussion: exitCodesHelp)

    @Argument(help: "Preset files (or names from Presets/).")
    var files: [String]

    func run() throws {
        let library = PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)
        var firstFailure: ExitCode?
        for name in files {
            do {
                let file = try library.presetPath(name)
                let session = try PresetDecoder.load(path: file)
                let request = RenderRequest(session: session, presetFile: file,
                                            options: RenderOptions(length: session.defaultLength), format: .ogg(quality: 4),
                                            outputPath: "/dev/null", library: library)
                // The whole plan, with every sound decoded: what a render would refuse, this does.
                let plan = try Renderer.check(request)
                try Console.output("\(file): ok, \(plan.schedule.cycleCount) cycles in \(plan.total.clockString)" + "\n")
            } catch {
                let code = fail(error)
                firstFailure = firstFailure ?? code
            }
        }
        if let firstFailure { throw firstFailure }
    }
}
