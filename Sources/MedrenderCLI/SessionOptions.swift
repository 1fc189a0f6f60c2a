import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets

/// The options that choose a session: the preset and its length.
struct SessionOptions: ParsableArguments {
    @Option(name: .long, help: "A preset name from Presets/ (see 'medrender presets') or a path to a .yaml file.")
    var preset: String

    @Option(name: .long, help: "Session length in minutes (decimal, up to 1440). Default: the preset's.")
    var minutes: Double?

    @Option(name: .long, help: "Session length in whole breath cycles, instead of --minutes.")
    var cycles: Int?

    @Option(name: .long, help: "Output sample rate in Hz, 8000 to 192000.")
    var rate: Int = 48000

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
    }

    /// Finds the library, loads the preset and applies the command line.
    func load() throws -> (session: Session, file: String, library: PresetLibrary, length: SessionLength) {
        let library = PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)
        let file = try library.presetPath(preset)
        let session = try PresetDecoder.load(path: file)
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
