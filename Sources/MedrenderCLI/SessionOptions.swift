import ArgumentParser
import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets

/// The options that choose a session: the preset and its length.
struct SessionOptions: ParsableArguments {
    @Option(name: .long, help: "A preset name from Presets/ (see 'medrender presets') or a path to a .yaml file.",
            completion: .custom(presetCompletions))
    var preset: String

    @Option(name: .long, parsing: .unconditional,
            help: "Session length in minutes (decimal, up to 1440), or 'fit' for as long as the preset's guided script or voice track. Default: the preset's.")
    var minutes: MinutesArgument?

    @Option(name: .long, help: "The guided script's voice, ENGINE[:NAME]: festival, espeak-ng, flite, piper (piper:en_US-joe-medium or piper:MODEL.onnx) or command:PROGRAM.")
    var voice: String?

    @Option(name: .long, help: "The language of the words and the voice, a BCP 47 tag: en, de, fr, es, it, pt-BR or pt-PT (pt is pt-BR), or one a library's Languages/ adds.")
    var language: String?

    @OptionGroup var speech: SpeechOptions

    @Option(name: .long, help: "Session length in whole breath cycles, instead of --minutes.")
    var cycles: Int?

    @Option(name: .long, help: ArgumentHelp("Output sample rate, 8000 to 192000 Hz: in hertz (44100) or kilohertz (44.1k).", valueName: "hz"))
    var rate = RateArgument(48000)

    @Option(name: .long, parsing: .unconditional, help: "Replace the preset's pattern, in seconds: inhale-hold-exhale-hold (such as 4.7-0.3-6.3-1.1), or inhale-hold-topup-exhale-hold for the physiological sigh (such as 2-0-1-6-0).")
    var pattern: String?

    @Option(name: .customLong("inhale"), parsing: .unconditional, help: "Override the inhale, in seconds.")
    var inhale: Double?

    @Option(name: .customLong("hold-in"), parsing: .unconditional, help: "Override the hold after the inhale, in seconds.")
    var holdIn: Double?

    @Option(name: .customLong("exhale"), parsing: .unconditional, help: "Override the exhale, in seconds.")
    var exhale: Double?

    @Option(name: .customLong("hold-out"), parsing: .unconditional, help: "Override the hold after the exhale, in seconds.")
    var holdOut: Double?

    @OptionGroup var libraries: LibraryOptions

    @Option(name: .long, parsing: .unconditional, help: "Seconds before the first breath, 0 to 3600, instead of the preset's settle.")
    var settle: Double?

    @Option(name: .long, parsing: .unconditional, help: "The least seconds after the last breath, 0 to 3600, instead of the preset's closing.")
    var closing: Double?

    @Option(name: .long, help: "Ambience beds from Sounds/, NAME[,NAME] (such as rain,ocean), or none, instead of the preset's.", completion: .custom(soundCompletions))
    var ambience: String?

    @Flag(name: .customLong("no-voice"), help: "Leave the preset's recorded voice out of the session (intro, outro, prompts, clips, track); a guided script still speaks.")
    var noVoice = false

    @Option(name: .long, help: "The bell sound from Sounds/ for the start, end and timed bells, or none for no bells.", completion: .custom(soundCompletions))
    var bells: String?

    @Option(name: .long, help: "Seed for loop start offsets and dither, 0 to 2147483647, instead of the preset's.")
    var seed: Int?

    @Option(name: .customLong("ambience-level"), parsing: .unconditional,
            help: ArgumentHelp("Every ambience bed's level, -70 to -10 LUFS, instead of the preset's (as a bed's level:).", valueName: "lufs"))
    var ambienceLevel: Double?

    @Option(name: .customLong("voice-level"), parsing: .unconditional,
            help: ArgumentHelp("The voice's level, -70 to -10 LUFS, instead of the preset's (as voice.level).", valueName: "lufs"))
    var voiceLevel: Double?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("How far the ambience dips under the voice, -40 to 0 dB, instead of the preset's (as voice.duck).", valueName: "db"))
    var duck: Double?

    @Option(name: .long, help: ArgumentHelp("The guided script's pace, 50 to 250 words a minute, instead of the preset's (guide.pace, 120 when it gives none).",
                                            valueName: "wpm"))
    var pace: Int?

    /// The session's options as the library takes them, read into their types (the encoding and
    /// mix options are added by the commands that have them); their limits are the library's to
    /// check, once, when it loads the session.
    func request() throws(ParameterError) -> SessionRequest {
        var p = SessionRequest(preset: preset)
        p.length = try LengthChoice(minutes: minutes?.minutes, fit: minutes?.fit ?? false, cycles: cycles)
        p.voice = try voice.map { (text) throws(ParameterError) in try GuideVoice(parsing: text) }
        p.pace = pace
        p.language = language
        p.rate = rate.hertz
        p.pattern = try pattern.map { (text) throws(ParameterError) in try PatternChoice(parsing: text) }
        p.inhale = inhale
        p.holdIn = holdIn
        p.exhale = exhale
        p.holdOut = holdOut
        p.settle = settle
        p.closing = closing
        p.ambience = try ambience.map { (text) throws(ParameterError) in try BedChoice(parsing: text) }
        p.noVoice = noVoice
        p.bells = try bells.map { (text) throws(ParameterError) in try BellChoice(parsing: text) }
        p.seed = seed
        p.ambienceLevel = ambienceLevel
        p.voiceLevel = voiceLevel
        p.duck = duck
        return p
    }

    /// Finds the library, loads the preset and applies the command line.
    func load() throws -> (session: Session, file: String, library: PresetLibrary, length: SessionLength) {
        let library = libraries.library()
        let (session, file, length) = try request().loadSession(library: library)
        return (session, file, library, length)
    }
}

/// Completes a preset: the library's preset names, and `.yaml` files beside the word typed.
@Sendable func presetCompletions(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    let names = (PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)).presetNames()
    let folder = prefix.contains("/") ? String(prefix[..<prefix.lastIndex(of: "/")!]) + "/" : ""
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [])
        .filter { PresetLibrary.isPresetFileName($0) }.map { folder + $0 }
    return (names + files).filter { $0.hasPrefix(prefix) }.sorted()
}

/// Completes a sound's name from the library's `Sounds/`.
@Sendable func soundCompletions(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    let library = PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)
    return (library.soundNames() + ["none"]).filter { $0.hasPrefix(prefix) }
}

/// Runs `body`, turning the library's usage errors into the argument parser's, so the command
/// line shows them with its usage line.
func asValidation<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as RenderError where error.category == .usage {
        throw ValidationError(error.description)
    } catch let error as ParameterError where error.category == .usage {
        throw ValidationError(error.worded(for: .commandLine))
    }
}

/// `--minutes M` or `--minutes fit`.
struct MinutesArgument: ExpressibleByArgument {
    var minutes: Double?
    var fit: Bool { minutes == nil }
    init?(argument: String) {
        if argument == "fit" {
            minutes = nil
        } else if let value = Double(argument) {
            minutes = value
        } else {
            return nil
        }
    }
}

extension RenderDestination {
    /// The destination `-o` names: `-` for standard output, or a file (a pipe or a device is
    /// written into as a stream).
    init(commandLine output: String) {
        self = output == "-" ? .standardOutput : .file(output)
    }
}
