/// Exit codes from sysexits(3), the ones medrender uses.
public enum SysExit: Int32, Sendable {
    /// The command line was wrong.
    case usage = 64
    /// A preset, pattern or sound's content was wrong.
    case dataError = 65
    /// An input file does not exist or cannot be read.
    case noInput = 66
    /// An internal error.
    case software = 70
    /// The output cannot be created.
    case cannotCreate = 73
    /// Reading or writing failed (a full disk, a closed pipe).
    case ioError = 74
    /// Interrupted by SIGINT.
    case interrupted = 130
    /// Terminated by SIGTERM.
    case terminated = 143
}

/// An error that knows how to tell a person what went wrong, where, and how to fix it, and which
/// exit code it means.
public protocol DiagnosedError: Error, CustomStringConvertible {
    /// The exit code the command line returns for this error.
    var exitCode: SysExit { get }
}
