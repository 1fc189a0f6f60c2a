import Foundation
import MedrenderCore

/// How one speech engine is asked to speak: its program, its arguments, its default voice for a
/// language and the Debian package that provides it. Engines only describe; `SpeechSynthesizer`
/// runs them.
public protocol SpeechEngine: Sendable {
    var engine: GuideVoice.Engine { get }
    /// The program run, looked up on `PATH` (for `command`, the voice's name).
    func program(voice: String?) -> String
    /// The Debian package that provides the program, when one does.
    var package: String? { get }
    /// The voice used when the script names none, for `language`; nil when the engine has none.
    func defaultVoice(for language: Language) -> String?
    /// The arguments that speak the text in `textFile` into the WAV file `output`.
    func arguments(voice: String, text: String, textFile: String, output: String) -> [String]
}

extension GuideVoice.Engine {
    /// The description of how this engine is run.
    public var description: any SpeechEngine {
        switch self {
        case .festival: FestivalEngine()
        case .espeakNG: ESpeakEngine()
        case .flite: FliteEngine()
        case .command: CommandEngine()
        }
    }

    /// The engine a language is spoken with when the script names none: festival for English,
    /// espeak-ng for the others.
    public static func defaultEngine(for language: Language) -> GuideVoice.Engine {
        language == .english ? .festival : .espeakNG
    }
}

/// festival's `text2wave`, with an HTS voice (`festvox-us-slt-hts`) by default.
struct FestivalEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .festival }
    func program(voice: String?) -> String { "text2wave" }
    var package: String? { "festival festvox-us-slt-hts" }
    func defaultVoice(for language: Language) -> String? { language == .english ? "cmu_us_slt_arctic_hts" : nil }
    func arguments(voice: String, text: String, textFile: String, output: String) -> [String] {
        ["-eval", "(voice_\(voice))", "-o", output, textFile]
    }
    /// The voices installed: the folders under festival's voice folders.
    static func installedVoices() -> [String] {
        let root = "/usr/share/festival/voices"
        let groups = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return groups.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\($0)")) ?? [] }.sorted()
    }
}

/// espeak-ng, which speaks every language medrender has words for.
struct ESpeakEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .espeakNG }
    func program(voice: String?) -> String { "espeak-ng" }
    var package: String? { "espeak-ng" }
    func defaultVoice(for language: Language) -> String? { language.rawValue }
    func arguments(voice: String, text: String, textFile: String, output: String) -> [String] {
        ["-v", voice, "-w", output, "-f", textFile]
    }
}

/// flite, with its built-in English voices.
struct FliteEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .flite }
    func program(voice: String?) -> String { "flite" }
    var package: String? { "flite" }
    func defaultVoice(for language: Language) -> String? { language == .english ? "slt" : nil }
    func arguments(voice: String, text: String, textFile: String, output: String) -> [String] {
        ["-voice", voice, "-f", textFile, "-o", output]
    }
}

/// A program the user has (a local neural voice, say): run with the text and an output path.
struct CommandEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .command }
    func program(voice: String?) -> String { voice ?? "" }
    var package: String? { nil }
    func defaultVoice(for language: Language) -> String? { nil }
    func arguments(voice: String, text: String, textFile: String, output: String) -> [String] { [text, output] }
}
