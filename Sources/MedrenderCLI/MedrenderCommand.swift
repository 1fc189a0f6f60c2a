import ArgumentParser
import Foundation
import MedrenderCore
import MedrenderIO

/// The exit codes, as every command's help gives them.
let exitCodesHelp = """
    Exit codes: 0 done, 64 usage error, 65 bad preset or pattern, 66 missing input, \
    73 cannot create output, 74 I/O error, 130 interrupted (SIGINT), 143 terminated (SIGTERM).
    """

/// `medrender`: renders guided breathing and meditation sessions to audio files.
public struct MedrenderCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "medrender",
        abstract: "Render guided breathing and meditation sessions to audio files, every cue on its exact sample.",
        discussion: exitCodesHelp,
        subcommands: [RenderCommand.self, PresetsCommand.self, ValidateCommand.self, CuesCommand.self, InspectCommand.self, EncodeCommand.self, BuildCommand.self],
        defaultSubcommand: RenderCommand.self)

    public init() {}

    /// Runs the command line: installs the signal handlers, then parses and runs.
    public static func start() {
        SignalCleanup.install()
        main()
    }
}

/// Turns a medrender error into a message on stderr and its exit code.
func fail(_ error: any Error) -> ExitCode {
    if let diagnosed = error as? any DiagnosedError {
        printError(diagnosed.description)
        return ExitCode(diagnosed.exitCode.rawValue)
    }
    printError("\(error)")
    return ExitCode(SysExit.software.rawValue)
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("medrender: error: \(message)\n".utf8))
}

/// Removes temporary output files on SIGINT and SIGTERM, then exits 130 or 143.
enum SignalCleanup {
    nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []

    static func install() {
        // Writes to a closed pipe or past a size limit become errors we report, not silent deaths.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        for (sig, code) in [(SIGINT, SysExit.interrupted), (SIGTERM, SysExit.terminated)] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                TemporaryFiles.removeAllForExit()
                FileHandle.standardError.write(Data("\nmedrender: \(sig == SIGINT ? "interrupted" : "terminated"); unfinished files were removed\n".utf8))
                exit(code.rawValue)
            }
            source.resume()
            sources.append(source)
        }
    }
}
