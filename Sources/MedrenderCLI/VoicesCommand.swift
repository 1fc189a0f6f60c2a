import ArgumentParser
import Medrender
import MedrenderCore

/// `medrender voices`: the speech engines and voices installed, and the package for each missing one.
struct VoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices", abstract: "List the speech engines and voices installed for guided scripts.")

    func run() throws {
        for entry in SpeechSynthesizer.installedEngines() {
            if entry.installed {
                try Console.output("\(entry.engine.rawValue): \(entry.voices.isEmpty ? "(no voices found)" : entry.voices.joined(separator: " "))\n")
            } else {
                try Console.output("\(entry.engine.rawValue): not installed; apt-get install \(entry.package ?? entry.engine.rawValue)\n")
            }
        }
        try Console.output("command: any program you have, run with the text and an output path (--voice command:PROGRAM)\n")
    }
}
