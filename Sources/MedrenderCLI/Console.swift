import Foundation
import MedrenderIO

/// Standard output and standard error, written with write(2) and every result checked: a stream
/// that is closed or full never crashes medrender (Foundation's FileHandle traps on it).
enum Console {
    /// Writes to standard output; a stream that cannot take it is an I/O error (74).
    static func output(_ text: String) throws(IOError) {
        try StreamOutput().write(bytes: Array(text.utf8))
    }

    /// Writes to standard error; what it cannot take is lost, as there is nowhere left to say so.
    static func error(_ text: String) {
        try? StreamOutput(descriptor: STDERR_FILENO, name: "standard error").write(bytes: Array(text.utf8))
    }
}
