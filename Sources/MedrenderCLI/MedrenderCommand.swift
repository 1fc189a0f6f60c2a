import ArgumentParser
import Foundation
import MedrenderBuild
import MedrenderCore
import MedrenderIO

/// The exit codes, as every command's help gives them.
let exitCodesHelp = """
    Exit codes: 0 done, 64 usage error, 65 bad preset or pattern, 66 missing input, \
    73 cannot create output, 74 I/O error, 130 interrupted (SIGINT), 143 terminated (SIGTERM), \
    128 + N for another signal N (129 for SIGHUP).
    """

/// `medrender`: renders guided breathing and meditation sessions to audio files.
public struct MedrenderCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "medrender",
        abstract: "Render guided breathing and meditation sessions to audio files, every cue on its exact sample.",
        discussion: exitCodesHelp,
        version: LibraryBuild.rendererVersion,
        subcommands: [RenderCommand.self, PresetsCommand.self, ValidateCommand.self, NewCommand.self, CuesCommand.self, PreviewCommand.self, PlotCommand.self,
                      InspectCommand.self, BuildCommand.self, ServeCommand.self, VoicesCommand.self, TakesCommand.self, StudioCommand.self, VideoCommand.self],
        defaultSubcommand: RenderCommand.self)

    public init() {}

    /// Runs the command line: installs the signal handlers, then parses and runs.
    public static func start() {
        SignalCleanup.install()
        ProcessMemory.mapLargeBuffers()
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Each script is written only when asked for: writing all three took 30 ms a run.
        let scripts: [(shell: String, script: () -> String)] = [("bash", { bashCompletionScript }), ("zsh", { zshCompletionScript }),
                                                                 ("fish", { fishCompletionScript })]
        for (shell, script) in scripts
        where arguments == ["--generate-completion-script", shell] || arguments == ["--generate-completion-script=\(shell)"] {
            print(script(), terminator: "")
            return
        }
        main()
    }

    /// The parser's bash completions, where a line that starts with an option (`medrender --preset
    /// b<TAB>`) completes as `render`, the default command, does: a preset's name, not `build`.
    static var bashCompletionScript: String {
        inserting(into: completionScript(for: .bash), after: "    local -a unparsed_words=(\"${COMP_WORDS[@]:1:${COMP_CWORD}}\")\n", """
                # A line that starts with an option belongs to the default command, render.
                if [[ "${COMP_CWORD}" -gt 1 && "${unparsed_words[0]}" == -* && "${unparsed_words[0]}" != @(-h|--help|--version) ]]; then
                    local -a repeating_flags=() non_repeating_flags=() repeating_options=() non_repeating_options=()
                    _medrender_render
                    return
                fi

            """)
    }
}

extension MedrenderCommand {
    /// `script` with `text` put in after the first `anchor` (whole lines the parser writes),
    /// or `script` as it is when the parser no longer writes them.
    static func inserting(into script: String, after anchor: String, _ text: String) -> String {
        guard let range = script.range(of: anchor) else { return script }
        return script.replacingCharacters(in: range, with: anchor + text)
    }

    /// The parser's zsh completions, where a line that starts with an option completes as
    /// `render`, the default command, does (as `bashCompletionScript`).
    static var zshCompletionScript: String {
        inserting(into: completionScript(for: .zsh), after: "    local -ir current_word_index=\"$((CURRENT - 1))\"\n", """

                # A line that starts with an option belongs to the default command, render.
                if [[ "${words[2]}" == -* ]] && { (( CURRENT == 2 )) || [[ "${words[2]}" != (-h|--help|--version) ]]; }; then
                    words[1]=render
                    _medrender_render
                    return
                fi

            """)
    }

    /// The parser's fish completions, where a line that starts with an option is read as a
    /// `render` line, the default command (as `bashCompletionScript`).
    static var fishCompletionScript: String {
        // fish before 4 prints no cursor index for `commandline -tC` (the parser's custom
        // completions then get one argument too few): the current token's length up to the cursor is it.
        let script = completionScript(for: .fish)
            .replacingOccurrences(of: "(__medrender_tokens -tC)", with: "(string length -- \"$(commandline -ct)\")")
        return inserting(into: script, after: "    switch $unparsed_tokens[1]\n    case 'medrender'\n", """
                    # A line that starts with an option belongs to the default command, render.
                    if string match -q -- '-*' $unparsed_tokens[2]; and not contains -- $unparsed_tokens[2] -h --help --version
                        set unparsed_tokens $unparsed_tokens[1] render $unparsed_tokens[2..]
                    end

            """)
    }
}

/// Turns a medrender error into a message on stderr and its exit code.
func fail(_ error: any Error) -> ExitCode {
    if let diagnosed = error as? any DiagnosedError {
        printError(diagnosed.description)
        return ExitCode(SysExit(diagnosed.category).rawValue)
    }
    printError("\(error)")
    return ExitCode(SysExit.software.rawValue)
}

func printError(_ message: String) {
    Console.error("medrender: error: \(message)\n")
}

/// Ends the programs medrender started (`ProcessGroups`) and removes temporary output files on a
/// signal that would end the process (SIGINT, SIGTERM, SIGHUP when the terminal goes, SIGQUIT, the
/// user, timer, I/O and real-time signals), then exits 128 + the signal's number, as the shell
/// reports it (130 for SIGINT, 143 for SIGTERM). The signals of a crash (SIGSEGV, SIGBUS, SIGILL,
/// SIGFPE, SIGABRT, SIGTRAP, SIGSYS) are left to the runtime.
enum SignalCleanup {
    nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []

    static func install() {
        // Writes to a closed pipe or past a size limit become errors we report, not silent deaths.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        var names = [SIGINT: "interrupted", SIGTERM: "terminated", SIGHUP: "hung up (SIGHUP)", SIGQUIT: "quit (SIGQUIT)",
                     SIGUSR1: "stopped by SIGUSR1", SIGUSR2: "stopped by SIGUSR2", SIGALRM: "stopped by SIGALRM",
                     SIGXCPU: "out of CPU time (SIGXCPU)", SIGVTALRM: "stopped by SIGVTALRM",
                     SIGIO: "stopped by SIGIO", SIGPWR: "stopped by SIGPWR", SIGSTKFLT: "stopped by SIGSTKFLT"]
        // The real-time signals (SIGRTMIN…SIGRTMAX: 34…64 on Linux) also end a process by default.
        for sig in Int32(34)...64 { names[sig] = "stopped by signal \(sig)" }
        for (sig, name) in names {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                // The speech engines running first, so none writes on after the files are removed.
                ProcessGroups.endAllForExit()
                TemporaryFiles.removeAllForExit()
                Console.error("\nmedrender: \(name); unfinished files were removed\n")
                exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Leaves `signals` to the caller: the server stops gracefully on SIGTERM and SIGINT.
    static func release(_ signals: [Int32]) {
        for source in sources where signals.contains(Int32(source.handle)) { source.cancel() }
        sources.removeAll { signals.contains(Int32($0.handle)) }
    }
}
