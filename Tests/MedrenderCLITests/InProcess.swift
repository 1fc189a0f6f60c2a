import Foundation
import MedrenderCLI
// The result is made here as the helpers make it (its memberwise initializer is internal).
@testable import MedrenderTestSupport

/// The command line's tests run a command in this process where it can run there
/// (`MedrenderCommand.runInProcess`: parsed and run as `main` does, its output held), and start
/// the program where only a process will do: a command in another folder or to be killed, one
/// that writes to standard output's descriptor itself (`-`, `/dev/stdout`), one that writes from
/// threads of its own or serves (`build`, `serve`, `studio`), help (its width follows the
/// terminal) and the shell completions. `MEDRENDER_TEST_SPAWN=1` starts the program for every
/// one. The tests that send signals, limit the file size or drop privileges start it too, through
/// their own helpers, and so do the service's tests: they are the end-to-end runs.
func runMedrender(_ arguments: [String], in directory: String? = nil, killAfter: Double? = nil) throws -> ProcessResult {
    guard directory == nil, killAfter == nil, InProcess.runs(arguments) else {
        return try MedrenderTestSupport.runMedrender(arguments, in: directory, killAfter: killAfter)
    }
    let (status, stdout, stderr) = MedrenderCommand.runInProcess(arguments)
    return ProcessResult(status: status, stdout: stdout, stderr: stderr)
}

enum InProcess {
    static let programOnly: Set<String> = ["serve", "studio", "build", "help", "--help", "-h"]

    /// Whether `arguments` can run in this process.
    static func runs(_ arguments: [String]) -> Bool {
        if ProcessInfo.processInfo.environment["MEDRENDER_TEST_SPAWN"] == "1" { return false }
        if let first = arguments.first, programOnly.contains(first) { return false }
        if arguments.contains(where: { $0 == "-" || $0.hasPrefix("/dev/") || $0 == "--help" || $0 == "-h" }) { return false }
        if arguments.contains(where: { $0.hasPrefix("--generate-completion-script") || $0.hasPrefix("---completion") }) { return false }
        return true
    }
}
