import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// `medrender new NAME [--from PRESET]`: a commented preset to start from.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Write a commented preset to start from: NAME.yaml, from a template or from another preset (--from).",
        discussion: exitCodesHelp)

    @Argument(help: "The new preset's name: letters, digits, '-' and '_' (the file is NAME.yaml).")
    var name: String

    @Option(name: .long, help: "Start from this preset (a name from Presets/ or a .yaml file) instead of the template.")
    var from: String?

    @OptionGroup var libraries: LibraryOptions

    @Option(name: .shortAndLong, help: "Where to write it (default: NAME.yaml in the current folder). It must not exist yet.")
    var output: String?

    func validate() throws {
        guard !name.isEmpty, name.count <= 100,
              name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }),
              !name.hasPrefix("-")
        else {
            throw ValidationError("'\(name)' is not a preset name; use letters, digits, '-' and '_', such as evening-calm")
        }
    }

    func run() throws {
        do {
            let path = output ?? "\(name).yaml"
            if FileManager.default.fileExists(atPath: path) {
                throw RenderError("\(path): already exists; choose another name or -o, or remove it first", category: .cannotCreate)
            }
            let text: String
            let library = libraries.library()
            let languages = try library.languages()
            if let from {
                let file = try library.presetPath(from)
                _ = try PresetDecoder.load(path: file, languages: languages)
                guard let data = FileManager.default.contents(atPath: file), let source = String(data: data, encoding: .utf8) else {
                    throw RenderError("\(file): cannot be read; check its permissions", category: .missingInput)
                }
                text = Self.derived(from: source, name: name, origin: from)
            } else {
                text = Self.template(name: name)
            }
            // What it writes is a preset that decodes: checked before it is put in place.
            _ = try PresetDecoder.decode(text, file: path, defaultName: name, languages: languages)
            let file = try AtomicOutputFile(path: path)
            try file.write(Array(text.utf8))
            try file.commit()
            Console.error("wrote \(path): check it with 'medrender validate \(path)', render it with 'medrender --preset \(path) -o \(name).ogg'\n")
        } catch {
            throw fail(error)
        }
    }

    /// `source` with its top-level `name:` set to `name`, under a line that says where it came from.
    static func derived(from source: String, name: String, origin: String) -> String {
        var lines = source.components(separatedBy: "\n")
        if let index = lines.firstIndex(where: { $0.hasPrefix("name:") }) {
            lines[index] = "name: \(name)"
        } else {
            let first = lines.firstIndex { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? 0
            lines.insert("name: \(name)", at: first)
        }
        return "# \(name): started from the preset \(origin). The README's preset reference explains every key.\n"
            + lines.joined(separator: "\n")
    }

    /// A preset with the keys most sessions use, each with a comment on what it does.
    static func template(name: String) -> String {
        """
        # \(name): a medrender preset. The README's preset reference explains every key;
        # 'medrender validate \(name).yaml' checks it, 'medrender presets \(name).yaml' shows it.
        name: \(name)
        description: What this session is for, in one sentence.

        # The default length: minutes (0.05-1440), or cycles (1-100000) instead.
        minutes: 10

        # Inhale-hold-exhale-hold in seconds, each 0-300, a cycle of at least 1 s. For a chain, use
        # 'segments:' (each with pattern and minutes or cycles) and say where spare time goes with 'fill:'.
        pattern: 4-0-6-0

        # Seconds before the first breath, and the least after the last. Kept as written at this
        # length; a shorter session fits them (and says so).
        settle: 20
        closing: 30

        # A cue at each phase start: tone pure, bell, bowl or tick (or sound: NAME from Sounds/),
        # pitch in Hz, gain in dB; 'none' for no cue.
        cues:
          inhale: { tone: bell, pitch: 659.26, gain: -12 }
          exhale: { tone: bell, pitch: 440, gain: -12 }

        # Voice clips from Sounds/ (or paths relative to this file): spoken in the settle and the closing.
        voice:
          intro: voice-intro
          outro: voice-outro

        # Beds from Sounds/, looped without a seam, each at a loudness in LUFS.
        ambience:
          beds:
            - { sound: rain, level: -28 }
          fade-in: 8
          fade-out: 12

        # Bells at the start and after the outro.
        bells:
          start: bell
          end: bell

        # A spoken script (take out the '# ' to use it). 'pause' is the silence before a line (s,
        # default 1); 'rest' is the silence after it (default 0), kept before whatever follows.
        # Either may be { min, weight }: at least min seconds, plus a share of the spare time.
        # guide:
        #   lines:
        #     - say: "Welcome. Let your eyes close."
        #       pause: 3
        #     - say: "Follow the breath, and rest here."
        #       during: breathing
        #       rest: { min: 10, weight: 1 }

        # The loudness of the whole file (LUFS) and its true-peak ceiling (dBTP).
        master:
          loudness: -18
          true-peak: -1

        """
    }
}
