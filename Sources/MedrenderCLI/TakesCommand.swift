import ArgumentParser
import Foundation
import Medrender
import MedrenderCore

/// `medrender takes FILE`: the phrases found in a teacher's one-take recording, as a guided
/// script's `recording:` cuts it into lines.
struct TakesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "takes", abstract: "List the spoken phrases found in a one-take recording of a script, one per line it will give.",
        discussion: exitCodesHelp)

    @Argument(help: "The recording (any sound medrender reads).", completion: .file()) var file: String

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("How far under the take's level silence starts, -80 to -6 dB (as recording.silence).", valueName: "db"))
    var silence: Double = TakePhrases.Settings().silence

    @Option(name: .long, help: ArgumentHelp("The shortest silence between two phrases, 0.05 to 10 s (as recording.gap).", valueName: "seconds"))
    var gap: Double = TakePhrases.Settings().gap.seconds

    func run() throws {
        guard TakePhrases.silenceRange.contains(silence) else {
            throw fail(ParameterError("silence", value: "\(silence)", "is out of range; give -80 to -6 dB"))
        }
        guard TakePhrases.gapRange.contains(gap) else {
            throw fail(ParameterError("gap", value: "\(gap)", "is out of range; give 0.05 to 10 seconds"))
        }
        var settings = TakePhrases.Settings()
        settings.silence = silence
        settings.gap = SessionTime(seconds: gap)!
        do {
            let found = try GuideTake.phrases(path: file, settings: settings, split: nil, place: file)
            var lines = ["\(file): \(found.phrases.count) phrase\(found.phrases.count == 1 ? "" : "s")"]
            for (i, p) in found.phrases.enumerated() {
                lines.append(String(format: "%4d  %9.3f  %9.3f s  %6.1f dBFS", i + 1, Double(p.startFrame) / Double(found.rate),
                                    Double(p.endFrame) / Double(found.rate), p.levelDecibels))
            }
            try Console.output(lines.joined(separator: "\n") + "\n")
        } catch {
            throw fail(error)
        }
    }
}
