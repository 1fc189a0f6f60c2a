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

    @Argument(help: "Preset files (or names from Presets/).", completion: .custom(presetCompletions))
    var files: [String]

    @OptionGroup var libraries: LibraryOptions

    @OptionGroup var speech: SpeechOptions

    @Option(name: .long, parsing: .unconditional,
            help: "Check the session at this length in minutes (decimal, up to 1440) instead of the preset's own.")
    var minutes: Double?

    func validate() throws {
        if let minutes, !(minutes.isFinite && minutes > 0 && minutes <= 1440) {
            throw ValidationError("--minutes \(minutes) is out of range; give a number of minutes above 0 and up to 1440 (24 h)")
        }
    }

    func run() throws {
        let library = libraries.library()
        var firstFailure: ExitCode?
        for name in files {
            do {
                let file = try library.presetPath(name)
                let session = try PresetDecoder.load(path: file, languages: library.languages())
                var request = RenderRequest(session: session, presetFile: file,
                                            options: RenderOptions(length: minutes.map { .duration(SessionTime(minutes: $0)!) } ?? session.defaultLength),
                                            format: .ogg(quality: 4),
                                            destination: .file("/dev/null"), library: library)
                request.speechTimeLimitSeconds = speech.timeLimitSeconds
                // The whole plan, with every sound decoded: what a render would refuse, this does.
                let plan = try Renderer.check(request)
                // What the fit changed or left out, and spare time left implicit: as a render says it.
                for change in plan.fitChanges { Console.error("medrender: note: \(file): \(change)\n") }
                for note in plan.notes { Console.error("medrender: warning: \(file): \(note)\n") }
                try Console.output("\(file): ok, \(plan.schedule.cycleCount) cycles in \(plan.total.clockString)" + "\n")
            } catch {
                let code = fail(error)
                firstFailure = firstFailure ?? code
            }
        }
        if let firstFailure { throw firstFailure }
    }
}
