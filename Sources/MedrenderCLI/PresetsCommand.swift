import ArgumentParser
import Foundation
import MedrenderCore
import MedrenderPresets

/// `medrender presets`: the preset library, a line each.
struct PresetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presets", abstract: "List the presets in Presets/: name, pattern, minutes, description; or show one.")

    @Argument(help: "A preset's name (or a .yaml file) to show in full: length, settle, each segment and ramp, closing, cues, voice, ambience, bells.")
    var name: String?

    @OptionGroup var libraries: LibraryOptions

    @Flag(name: .long, help: "Print the list as JSON.")
    var json = false

    func run() throws {
        let library: PresetLibrary
        do {
            library = try PresetLibrary.required().adding(front: libraries.folders)
            if let name {
                let file = try library.presetPath(name)
                let summary = PresetSummary(session: try PresetDecoder.load(path: file, languages: library.languages()), file: file)
                try Console.output(json ? Self.prettyJSON(summary) : summary.text)
                return
            }
        } catch {
            throw fail(error)
        }
        var entries: [PresetListing] = []
        // A bad preset is reported and the others are still listed; the exit code says it.
        var failure: ExitCode?
        for file in library.presetFiles() {
            do {
                entries.append(PresetListing(session: try PresetDecoder.load(path: file, languages: library.languages()), file: file, origin: library.origin(ofPreset: file)))
            } catch {
                failure = failure ?? fail(error)
            }
        }
        if entries.isEmpty, failure == nil {
            throw fail(PresetError(file: library.presetsFolder, message: "holds no presets (.yaml files)", category: .missingInput))
        }
        do {
            try Console.output(json ? Self.prettyJSON(entries) : table(entries, showingOrigins: !library.front.isEmpty))
        } catch {
            throw fail(error)
        }
        if let failure { throw failure }
    }

    /// `value` as pretty JSON with sorted keys, and a newline.
    static func prettyJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// The list as text: a line per preset, its name, pattern, length and description in columns,
    /// and where it comes from when `showingOrigins` (with a library of the teacher's).
    func table(_ entries: [PresetListing], showingOrigins: Bool) -> String {
        let nameWidth = entries.map(\.name.count).max() ?? 4
        let patternWidth = entries.map(\.pattern.count).max() ?? 7
        var text = ""
        for e in entries {
            let length: String = e.minutes.map { "\(format($0)) min" } ?? "\(e.cycles ?? 0) cycles"
            let name = e.name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
            let pattern = e.pattern.padding(toLength: patternWidth + 2, withPad: " ", startingAt: 0)
            text += name + pattern + length.padding(toLength: 10, withPad: " ", startingAt: 0) + e.description
            // With a library of the teacher's, each line says where its preset comes from.
            if showingOrigins, let origin = e.origin { text += "  [\(origin)]" }
            text += "\n"
        }
        return text
    }

    func format(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
}
