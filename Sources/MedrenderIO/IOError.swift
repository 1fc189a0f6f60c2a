import MedrenderCore

/// An error reading or writing a sound file, resampling, measuring or encoding.
public struct IOError: DiagnosedError, Hashable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The file does not exist or cannot be opened for reading.
        case missingInput
        /// The file is not audio medrender can read, or its content is broken.
        case badData
        /// The output cannot be created there.
        case cannotCreate
        /// A read or write failed midway.
        case io
        /// A C library failed in a way no input should cause.
        case library
    }
    public var kind: Kind
    /// What went wrong and how to fix it.
    public var message: String
    /// The file concerned, when there is one.
    public var path: String?
    /// The underlying library's or system's own words.
    public var cause: String?

    public init(_ kind: Kind, _ message: String, path: String? = nil, cause: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.cause = cause
    }

    public var category: ErrorCategory {
        switch kind {
        case .missingInput: .missingInput
        case .badData: .badData
        case .cannotCreate: .cannotCreate
        case .io: .io
        case .library: .internal
        }
    }

    public var description: String { worded(for: .commandLine) }

    /// The message, a field of the request it names (`{rate}`) as `face` names it; the path and
    /// the library's own words are given as they are.
    public func worded(for face: Face) -> String {
        var text = path.map { "\($0): " } ?? ""
        text += face.naming(message)
        if let cause, !cause.isEmpty { text += " (\(cause))" }
        return text
    }
}
