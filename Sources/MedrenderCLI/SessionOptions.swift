import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets

/// The options that choose a session: the preset and its length.
struct SessionOptions: ParsableArguments {
    @Option(name: .long, help: "A preset name from Presets/ (see 'medrender presets') or a path to a .yaml file.")
    var preset: String

    @Option(name: .long, parsing: .unconditional, help: "Session length in minutes (decimal, up to 1440). Default: the preset's.")
    var minutes: Double?

    @Option(name: .long, help: "Session length in whole breath cycles, instead of --minutes.")
    var cycles: Int?

    @Option(name: .long, help: "Output sample rate in Hz, 8000 to 192000.")
    var rate: Int = 48000

    @Option(name: .long, parsing: .unconditional, help: "Replace the preset's pattern: inhale-hold-exhale-hold in seconds, such as 4.7-0.3-6.3-1.1.")
    var pattern: String?

    @Option(name: .customLong("inhale"), parsing: .unconditional, help: "Override the inhale, in seconds.")
    var inhale: Double?

    @Option(name: .customLong("hold-in"), parsing: .unconditional, help: "Override the hold after the inhale, in seconds.")
    var holdIn: Double?

    @Option(name: .customLong("exhale"), parsing: .unconditional, help: "Override the exhale, in seconds.")
    var exhale: Double?

    @Option(name: .customLong("hold-out"), parsing: .unconditional, help: "Override the hold after the exhale, in seconds.")
    var holdOut: Double?

    /// The phase overrides given, in playing order.
    var phaseOverrides: [(PhaseKind, String, Double)] {
        [(PhaseKind.inhale, "--inhale", inhale), (.holdIn, "--hold-in", holdIn), (.exhale, "--exhale", exhale),
         (.holdOut, "--hold-out", holdOut)].compactMap { kind, name, value in value.map { (kind, name, $0) } }
    }

    func parsedPattern() throws -> BreathPattern? {
        guard let pattern else { return nil }
        do {
            return try PatternNotation.parse(pattern)
        } catch {
            throw ValidationError("--pattern: \(error.description)")
        }
    }

    func validate() throws {
        if minutes != nil, cycles != nil {
            throw ValidationError("give --minutes or --cycles, not both")
        }
        if let minutes {
            guard minutes.isFinite, minutes > 0, minutes <= 1440 else {
                throw ValidationError("--minutes \(minutes) is out of range; give a number of minutes above 0 and up to 1440 (24 h)")
            }
        }
        if let cycles, !(1...100_000).contains(cycles) {
            throw ValidationError("--cycles \(cycles) is out of range; give 1 to 100000")
        }
        guard RenderOptions.rateRange.contains(rate) else {
            throw ValidationError("--rate \(rate) is out of range; give 8000 to 192000 Hz")
        }
        _ = try parsedPattern()
        for (_, name, value) in phaseOverrides where !(value.isFinite && PatternNotation.phaseRange.contains(value)) {
            throw ValidationError("\(name) \(value) is out of range; give 0 to 60 seconds")
        }
    }

    /// Finds the library, loads the preset and applies the command line.
    func load() throws -> (session: Session, file: String, library: PresetLibrary, length: SessionLength) {
        let library = PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)
        let file = try library.presetPath(preset)
        var session = try PresetDecoder.load(path: file)
        var changes: [String] = []
        if let replacement = try parsedPattern() {
            session.replacePattern(with: replacement)
            changes.append("--pattern \(pattern!)")
        }
        for (kind, name, value) in phaseOverrides {
            session.override(kind, with: SessionTime(seconds: value)!)
            changes.append("\(name) \(value)")
        }
        if !changes.isEmpty, let violation = session.limitViolation {
            throw RenderError("\(file): \(changes.joined(separator: " ")): \(violation)", category: .badData)
        }
        let length: SessionLength
        if let minutes {
            length = .duration(SessionTime(minutes: minutes)!)
        } else if let cycles {
            length = .cycles(cycles)
        } else {
            length = session.defaultLength
        }
        return (session, file, library, length)
    }
}
