import ArgumentParser
import Foundation
import Medrender

/// `medrender inspect FILE`: what a sound file holds.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a file's duration, rate, channels, format, loudness, true peak, tags and chapters.",
        discussion: exitCodesHelp)

    @Argument(help: "The sound file.")
    var file: String

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    func run() throws {
        do {
            let report = try Inspector.inspect(file)
            for warning in report.warnings { FileHandle.standardError.write(Data("medrender: warning: \(file): \(warning)\n".utf8)) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(data: try encoder.encode(report), encoding: .utf8)!)
                return
            }
            print("\(report.path)")
            print("  format    \(report.format), \(report.rate) Hz, \(report.channels) channel\(report.channels == 1 ? "" : "s")")
            print("  duration  \(report.duration) (\(report.frames) frames)")
            if let l = report.loudnessLUFS { print(String(format: "  loudness  %.1f LUFS integrated", l)) }
            if let p = report.truePeakDBTP { print(String(format: "  peak      %.1f dBTP true peak", p)) }
            for key in report.tags.keys.sorted() { print("  \(key.padding(toLength: 9, withPad: " ", startingAt: 0)) \(report.tags[key]!)") }
            for chapter in report.chapters { print(String(format: "  chapter   %9.3f s  %@", chapter.seconds, chapter.name)) }
        } catch {
            throw fail(error)
        }
    }
}
