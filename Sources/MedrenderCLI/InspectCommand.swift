import ArgumentParser
import Foundation
import Medrender

/// `medrender inspect FILE`: what a sound file holds.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a file's duration, rate, channels, format, loudness, true peak, tags and chapters.",
        discussion: exitCodesHelp)

    @Argument(help: "The sound file.", completion: .file())
    var file: String

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    /// A file's text as it may go to a terminal: control characters (escape sequences, line
    /// breaks) shown as `\u{…}` instead of acted on.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined())
    }

    func run() throws {
        do {
            let report = try Inspector.inspect(file)
            for warning in report.warnings { Console.error("medrender: warning: \(file): \(warning)\n") }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try Console.output(String(data: try encoder.encode(report), encoding: .utf8)! + "\n")
                return
            }
            var lines = [report.path]
            lines.append("  format    \(report.format), \(report.rate) Hz, \(report.channels) channel\(report.channels == 1 ? "" : "s")")
            lines.append("  duration  \(report.duration) (\(report.frames) frames)")
            if let l = report.loudnessLUFS { lines.append(String(format: "  loudness  %.1f LUFS integrated", l)) }
            if let p = report.truePeakDBTP { lines.append(String(format: "  peak      %.1f dBTP true peak", p)) }
            for key in report.tags.keys.sorted() where !(report.tags[key] ?? "").isEmpty {
                lines.append("  \(Self.printable(key).padding(toLength: 9, withPad: " ", startingAt: 0)) \(Self.printable(report.tags[key]!))")
            }
            for chapter in report.chapters {
                lines.append(String(format: "  chapter   %9.3f s  ", chapter.seconds) + Self.printable(chapter.name))
            }
            try Console.output(lines.joined(separator: "\n") + "\n")
        } catch {
            throw fail(error)
        }
    }
}
