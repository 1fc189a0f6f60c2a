import ArgumentParser
import Medrender

/// The bound on the speech engines: the seconds one line of a guided script may take; and the
/// folders Piper voices are looked for in first.
struct SpeechOptions: ParsableArguments {
    @Option(name: .customLong("speech-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds a speech engine may take to speak one line of a guided script, above 0 and up to 86400; past it the engine and everything it started are stopped and the line fails. Default: 120.",
                               valueName: "seconds"))
    var speechTimeout: Double?

    @Option(name: .customLong("voices"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A folder of Piper voices (NAME.onnx beside NAME.onnx.json), searched before $MEDRENDER_VOICES, $XDG_DATA_HOME/piper-voices, /usr/share/piper-voices and the installed Python packages' voices; may be given more than once.",
                               valueName: "dir"))
    var voiceFolders: [String] = []

    /// The time limit of one line in seconds: the one given, else the library's default.
    var timeLimitSeconds: Double { speechTimeout ?? SpeechSynthesizer.defaultTimeLimitSeconds }

    /// Checks the options, and makes the `--voices` folders the first the Piper voices are looked
    /// for in, for this process (the one command it runs).
    func validate() throws {
        if let speechTimeout, !(speechTimeout.isFinite && speechTimeout > 0 && speechTimeout <= 86400) {
            throw ValidationError("--speech-timeout \(speechTimeout) is out of range; give seconds above 0 and up to 86400 (24 h)")
        }
        PiperVoices.setGivenFolders(voiceFolders)
    }
}
