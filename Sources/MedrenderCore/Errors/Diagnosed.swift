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
///
/// `description` is the command line's wording; `worded(for:)` gives each face's (see `Face`).
public protocol DiagnosedError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var category: ErrorCategory { get }
    /// The one-line message as `face` names a request's fields.
    func worded(for face: Face) -> String
}

/// How a face of medrender names a request's fields. The library never names a command-line
/// option or a query parameter: a message that names a field writes it `{name}` (`give {minutes}
/// or {cycles}`), and each face words it once, the command line as its option (`--minutes`), the
/// service as its query parameter (`minutes`).
public enum Face: Sendable {
    /// `--minutes 15`.
    case commandLine
    /// `minutes=15`.
    case query

    /// `text` with each `{name}` (a lowercase letter, then letters, digits and '-') written as this
    /// face names a field, and each `{name=}` (a field, then its value) as it gives one; other
    /// braces are left as they are.
    public func naming(_ text: String) -> String {
        var out = "", rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest.index(after: open)
            if let close = rest[after...].firstIndex(of: "}"), Self.isFieldName(rest[after..<close]) {
                out += word(rest[after..<close])
                rest = rest[rest.index(after: close)...]
            } else {
                out += "{"
                rest = rest[after...]
            }
        }
        return out + rest
    }

    /// `minutes` as this face names it; `minutes=`, a field followed by its value, as
    /// `--minutes ` or `minutes=`.
    func word(_ field: Substring) -> String {
        let valued = field.hasSuffix("=")
        let name = valued ? field.dropLast() : field
        switch self {
        case .commandLine: return "--\(name)" + (valued ? " " : "")
        case .query: return String(field)
        }
    }

    static func isFieldName(_ name: Substring) -> Bool {
        let body = name.hasSuffix("=") ? name.dropLast() : name
        guard let first = body.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return body.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

extension DiagnosedError {
    /// The message as `face` names fields. An error whose text names none is the same on every face.
    public func worded(for face: Face) -> String { face.naming(description) }
}
