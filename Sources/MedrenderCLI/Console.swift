import Foundation
import MedrenderIO
import Synchronization

/// Standard output and standard error, written with write(2) and every result checked: a stream
/// that is closed or full never crashes medrender (Foundation's FileHandle traps on it).
///
/// While a command runs in its caller's process (`MedrenderCommand.runInProcess`), what it
/// writes here is held for the caller instead, and standard error is no terminal.
enum Console {
    /// The text held for a command run in process, on its task; nil when run as a program.
    @TaskLocal static var capture: ConsoleCapture?

    /// Writes to standard output; a stream that cannot take it is an I/O error (74).
    /// A report on standard output as JSON: pretty, its keys sorted.
    static func outputJSON(_ report: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try output(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n")
    }

    static func output(_ text: String) throws(IOError) {
        if let capture {
            capture.output.withLock { $0 += text.utf8 }
            return
        }
        try StreamOutput().write(bytes: Array(text.utf8))
    }

    /// Writes to standard error; what it cannot take is lost, as there is nowhere left to say so.
    static func error(_ text: String) {
        if let capture {
            capture.error.withLock { $0 += text.utf8 }
            return
        }
        try? StreamOutput(descriptor: STDERR_FILENO, name: "standard error").write(bytes: Array(text.utf8))
    }

    /// Whether standard error is a terminal that shows a progress bar (never while held).
    static var errorIsTerminal: Bool { capture == nil && isatty(STDERR_FILENO) == 1 }
}

/// What a command run in process wrote to standard output and standard error.
final class ConsoleCapture: Sendable {
    let output = Mutex<[UInt8]>([])
    let error = Mutex<[UInt8]>([])
}

extension MedrenderCommand {
    /// Parses and runs `arguments` as the program's `main` does, in this process, and returns the
    /// exit status and what it wrote to standard output and standard error: for tests, which then
    /// need not start the program for each command line.
    ///
    /// It installs no signal handler and writes nothing of its own to the process's streams. A
    /// command whose output goes to a descriptor itself (audio or a sheet to `-` or `/dev/stdout`),
    /// or that writes from threads of its own (`build`), or serves (`serve`, `studio`), is a case for
    /// the program itself.
    public static func runInProcess(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        let capture = ConsoleCapture()
        let status: Int32 = Console.$capture.withValue(capture) {
            do {
                var command = try parseAsRoot(arguments)
                try command.run()
                return 0
            } catch {
                // As the parser's `main` ends: help and the version on standard output, a usage
                // error on standard error with the usage, a command's own exit code as it is.
                let code = exitCode(for: error)
                let text = fullMessage(for: error)
                if !text.isEmpty {
                    if code == .success { try? Console.output(text + "\n") } else { Console.error(text + "\n") }
                }
                return code.rawValue
            }
        }
        return (status, String(decoding: capture.output.withLock { $0 }, as: UTF8.self),
                String(decoding: capture.error.withLock { $0 }, as: UTF8.self))
    }
}
