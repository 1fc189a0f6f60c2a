import Crypto
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
    /// How to install the program (`apt-get install festival`), nil when it is the user's own.
    var installHint: String? { get }
    /// The voice used when the script names none, for `language`; nil when the engine has none.
    func defaultVoice(for language: Language) -> String?
    /// The arguments that speak the text in `textFile` into the WAV file `output`, its speech
    /// stretched by `scale` (1 is the engine's own pace, 2 twice as long) when given.
    func arguments(voice: String, text: String, textFile: String, output: String, scale: Double?) -> [String]
    /// How the engine is brought to a pace; nil when it cannot be (`command`, a program of the
    /// user's, speaks at its own).
    var pacing: EnginePacing? { get }
    /// The voices installed, as a script names them (asked of the engine itself), or nil when the
    /// engine cannot list them (`command`).
    func installedVoices() -> [String]?
    /// Whether `voice` is one of `installed` (or another name the engine takes for one of them).
    func accepts(_ voice: String, installed: [String]) -> Bool
    /// What changes when the engine's audio may change: its own `--version` (for `command`, the
    /// SHA-256 of the program's bytes; for Piper, of the voice's model). Part of every line's
    /// cache key and build identity.
    func version(program: String, voice: String) -> String
    /// Whether `voice` is installed, known without asking the engine (which may take seconds);
    /// false sends the question to `installedVoices`.
    func isPlainlyInstalled(_ voice: String) -> Bool
}

extension SpeechEngine {
    var installHint: String? { package.map { "apt-get install \($0)" } }
    func accepts(_ voice: String, installed: [String]) -> Bool { installed.contains(voice) }
    func isPlainlyInstalled(_ voice: String) -> Bool { false }
    var pacing: EnginePacing? { nil }
}

extension GuideVoice.Engine {
    /// The description of how this engine is run.
    public var description: any SpeechEngine {
        switch self {
        case .festival: FestivalEngine()
        case .espeakNG: ESpeakEngine()
        case .flite: FliteEngine()
        case .piper: PiperEngine()
        case .command: CommandEngine()
        }
    }

    /// The engine a language is spoken with when the script names none: festival for English,
    /// espeak-ng for the others.
    public static func defaultEngine(for language: Language) -> GuideVoice.Engine {
        language.isEnglish ? .festival : .espeakNG
    }
}

/// festival's `text2wave`, with an HTS voice (`festvox-us-slt-hts`) by default.
struct FestivalEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .festival }
    func program(voice: String?) -> String { "text2wave" }
    var package: String? { "festival festvox-us-slt-hts" }
    func defaultVoice(for language: Language) -> String? { language.isEnglish ? "cmu_us_slt_arctic_hts" : nil }
    /// A stretch is said twice: HTS voices (the default) take their engine's speed (`-r`), the
    /// others festival's `Duration_Stretch`; each ignores the other's.
    func arguments(voice: String, text: String, textFile: String, output: String, scale: Double?) -> [String] {
        var stretch: [String] = []
        if let scale {
            stretch = ["-eval", "(Parameter.set 'Duration_Stretch \(EnginePacing.text(scale)))",
                       "-eval", "(set! hts_engine_params (append hts_engine_params (list (list \"-r\" \(EnginePacing.text(1 / scale))))))"]
        }
        return ["-eval", "(voice_\(voice))"] + stretch + ["-o", output, textFile]
    }
    var pacing: EnginePacing? { EnginePacing(naturalWordsPerMinute: 220, fixed: 0.07) }
    /// A voice folder of that name in festival's voice folders (`/usr/share/festival/voices/*/NAME`):
    /// asking festival itself takes seconds, too long for every render.
    func isPlainlyInstalled(_ voice: String) -> Bool {
        let root = "/usr/share/festival/voices"
        let groups = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return !voice.contains("/") && groups.contains { FileManager.default.fileExists(atPath: "\(root)/\($0)/\(voice)") }
    }
    /// The voices installed: festival's own `(voice.list)`.
    func installedVoices() -> [String]? {
        let out = SpeechSynthesizer.output(of: ["festival", "--pipe"], input: "(print (voice.list))\n")
        guard let open = out.lastIndex(of: "("), let close = out.lastIndex(of: ")"), open < close else { return [] }
        return out[out.index(after: open)..<close].split(whereSeparator: \.isWhitespace).map(String.init).sorted()
    }
    func version(program: String, voice: String) -> String {
        SpeechSynthesizer.output(of: ["festival", "--version"]).split(whereSeparator: \.isNewline).first.map(String.init) ?? "unknown"
    }
}

/// espeak-ng, which speaks every language medrender has words for.
struct ESpeakEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .espeakNG }
    func program(voice: String?) -> String { "espeak-ng" }
    var package: String? { "espeak-ng" }
    /// espeak-ng's voice for the tag: `pt` is Portugal's Portuguese there and `pt-br` Brazil's;
    /// any other tag lowercased (`de`, `en-gb`), which espeak-ng names its voices by.
    func defaultVoice(for language: Language) -> String? { Self.voice(for: language) }
    static func voice(for language: Language) -> String {
        switch (language.primarySubtag, language.regionSubtag) {
        case ("pt", "PT"): "pt"
        case ("pt", nil): "pt-br"
        default: language.tag.lowercased()
        }
    }
    /// A stretch is its speed (`-s`, 175 words a minute its own, 80 its least). Past 1.6 times
    /// its length, a gap between words comes in too (`-g`): its first step lengthens a line by about
    /// a fifth and each further one by about 5.5 %, so the speed goes up to make up for the first.
    func arguments(voice: String, text: String, textFile: String, output: String, scale: Double?) -> [String] {
        var pace: [String] = []
        if let scale {
            if scale <= 1.6 {
                pace = ["-s", "\(Int((175 / scale).rounded()))"]
            } else {
                let speed = 175 * 1.2 / scale
                let gap = speed >= 80 ? 1 : 1 + Int(((80 / speed - 1) / 0.055).rounded())
                pace = ["-s", "\(Int(max(80, speed).rounded()))", "-g", "\(gap)"]
            }
        }
        return pace + ["-v", voice, "-w", output, "-f", textFile]
    }
    var pacing: EnginePacing? { EnginePacing(naturalWordsPerMinute: 237, fixed: 0) }
    /// The language codes of `espeak-ng --voices`; a voice may also be named by its name or file
    /// (`German`, `gmw/de`), with a variant after `+` (`de+f3`).
    func installedVoices() -> [String]? { Self.table().map(\.code) }
    func accepts(_ voice: String, installed: [String]) -> Bool {
        let base = voice.split(separator: "+", maxSplits: 1).first.map(String.init) ?? voice
        return Self.table().contains {
            [$0.code, $0.name, $0.file, String($0.file.split(separator: "/").last ?? "")].contains { $0.lowercased() == base.lowercased() }
        }
    }
    /// `espeak-ng --voices`, one row per voice: code, name, file.
    static func table() -> [(code: String, name: String, file: String)] {
        SpeechSynthesizer.output(of: ["espeak-ng", "--voices"]).split(separator: "\n").dropFirst().compactMap { row in
            let f = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            return f.count >= 5 ? (f[1], f[3], f[4]) : nil
        }
    }
    func version(program: String, voice: String) -> String {
        let text = SpeechSynthesizer.output(of: ["espeak-ng", "--version"])
        // Without the data folder's path, which says where, not which version.
        return (text.components(separatedBy: "Data at:").first ?? text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// flite, with its built-in English voices.
struct FliteEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .flite }
    func program(voice: String?) -> String { "flite" }
    var package: String? { "flite" }
    func defaultVoice(for language: Language) -> String? { language.isEnglish ? "slt" : nil }
    func arguments(voice: String, text: String, textFile: String, output: String, scale: Double?) -> [String] {
        (scale.map { ["--setf", "duration_stretch=\(EnginePacing.text($0))"] } ?? []) + ["-voice", voice, "-f", textFile, "-o", output]
    }
    var pacing: EnginePacing? { EnginePacing(naturalWordsPerMinute: 222, fixed: 0) }
    /// The built-in voices of `flite -lv`.
    func installedVoices() -> [String]? {
        SpeechSynthesizer.output(of: ["flite", "-lv"]).replacingOccurrences(of: "Voices available:", with: "")
            .split(whereSeparator: \.isWhitespace).map(String.init)
    }
    /// A built-in voice, or a `.flitevox` file that exists.
    func accepts(_ voice: String, installed: [String]) -> Bool {
        installed.contains(voice) || (voice.hasSuffix(".flitevox") && FileManager.default.isReadableFile(atPath: voice))
    }
    func version(program: String, voice: String) -> String {
        let text = SpeechSynthesizer.output(of: ["flite", "--version"])
        return text.split(whereSeparator: \.isNewline).first { $0.contains("version:") }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }
}

/// Piper (`pip install piper-tts`), a neural voice run as its own program, never linked (it is
/// GPL-3): a model by name (`en_US-joe-medium`, found in `PiperVoices.folders()`) or by path.
/// Its noise scales are 0, so the same text gives the same samples; `SpeechSynthesizer` speaks
/// every line of a render in one process, so the model loads once.
struct PiperEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .piper }
    func program(voice: String?) -> String { "piper" }
    var package: String? { nil }
    var installHint: String? { "pip install piper-tts" }
    func defaultVoice(for language: Language) -> String? { nil }
    /// One line into one WAV file.
    func arguments(voice: String, text: String, textFile: String, output: String, scale: Double?) -> [String] {
        Self.arguments(model: PiperVoices.find(voice)?.model ?? voice, scale: scale) + ["-i", textFile, "-f", output]
    }
    /// The arguments every run has: the model, its config and fixed noise (no randomness), and
    /// the phonemes' length when a pace is asked.
    static func arguments(model: String, scale: Double?) -> [String] {
        ["-m", model, "-c", model + ".json", "--noise-scale", "0", "--noise-w-scale", "0"]
            + (scale.map { ["--length-scale", EnginePacing.text($0)] } ?? [])
    }
    var pacing: EnginePacing? { EnginePacing(naturalWordsPerMinute: 249, fixed: 0.25) }
    func installedVoices() -> [String]? { PiperVoices.all().map(\.name) }
    /// A voice found by name in the voice folders, or a model's path that exists.
    func accepts(_ voice: String, installed: [String]) -> Bool { PiperVoices.find(voice) != nil }
    func isPlainlyInstalled(_ voice: String) -> Bool { PiperVoices.find(voice) != nil }
    func version(program: String, voice: String) -> String {
        PiperVoices.find(voice).map(PiperVoices.version(of:)) ?? "unreadable"
    }
}

/// A program the user has (a local neural voice, say): run with the text and an output path.
struct CommandEngine: SpeechEngine {
    var engine: GuideVoice.Engine { .command }
    func program(voice: String?) -> String { voice ?? "" }
    var package: String? { nil }
    func defaultVoice(for language: Language) -> String? { nil }
    func arguments(voice: String, text: String, textFile: String, output: String, scale: Double?) -> [String] { [text, output] }
    func installedVoices() -> [String]? { nil }
    func accepts(_ voice: String, installed: [String]) -> Bool { true }
    /// The SHA-256 of the program's bytes: a new voice program is a new version.
    func version(program: String, voice: String) -> String {
        guard let path = SpeechSynthesizer.locate(program), let data = FileManager.default.contents(atPath: path) else { return "unreadable" }
        return "sha256:" + SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
