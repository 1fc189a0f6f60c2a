/// What kind of failure an error is, so that each face of medrender can answer it in its own
/// terms: the command line with an exit code from sysexits(3), the service with an HTTP status.
public enum ErrorCategory: String, Sendable, Hashable, Codable, CaseIterable {
    /// The request itself was wrong: an option, a parameter, a combination of them.
    case usage
    /// A preset, pattern or sound's content was wrong.
    case badData
    /// An input (preset, sound) does not exist or cannot be read.
    case missingInput
    /// The output cannot be created.
    case cannotCreate
    /// Reading or writing failed midway (a full disk, a closed pipe, a client gone).
    case io
    /// A failure no input should cause.
    case `internal`
}

/// An error that knows how to tell a person what went wrong, where, and how to fix it, and what
/// kind of failure it is.
public protocol DiagnosedError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var category: ErrorCategory { get }
}
