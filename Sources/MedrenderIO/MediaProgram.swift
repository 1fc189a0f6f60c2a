// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import MedrenderCore

/// `medrender-media`, the program that alone links FFmpeg's libraries, Cairo and Pango: it decodes
/// M4A/AAC sounds (`MediaSoundStream`) and draws and encodes videos for medrender, which runs it
/// where it needs them. An audio render, `--version` and the server's audio routes load none of
/// those libraries: they start faster and take less memory.
///
/// It is found beside the running program (the folder of `/proc/self/exe`, links resolved), or
/// where `MEDRENDER_MEDIA` says.
public enum MediaProgram {
    /// The program's file name.
    public static let name = "medrender-media"
    /// The environment variable that names the program's path instead.
    public static let environmentVariable = "MEDRENDER_MEDIA"

    /// The program's path, or an error saying what is missing and how to fix it.
    public static func path() throws(IOError) -> String {
        if let given = ProcessInfo.processInfo.environment[environmentVariable], !given.isEmpty {
            guard access(given, X_OK) == 0 else {
                throw IOError(.missingInput, "cannot be run (\(environmentVariable) names it); give the path of \(name), "
                              + "or unset \(environmentVariable) to use the one beside medrender", path: given,
                              cause: String(cString: strerror(errno)))
            }
            return given
        }
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let beside = URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent(name).path
        guard access(beside, X_OK) == 0 else {
            throw IOError(.missingInput, "is missing: medrender decodes M4A/AAC sounds and makes videos with \(name), "
                          + "which belongs beside it (make install puts it there); install it, or set \(environmentVariable) to its path",
                          path: beside)
        }
        return beside
    }

    /// The error the program's run ended with, from what it wrote on its standard error: the
    /// `MediaFailure` on its last line, or, when it said none (it crashed), what ended it.
    public static func failure(_ ending: ProcessGroup.Ending, errorText: String, program: String) -> MediaFailure {
        let lastLine = errorText.split(separator: "\n").last.map(String.init) ?? ""
        if let failure = try? JSONDecoder().decode(MediaFailure.self, from: Data(lastLine.utf8)) { return failure }
        let how = switch ending {
        case .exited(let status): "exited with status \(status)"
        case .signaled(let signal): "was ended by signal \(signal)"
        case .timedOut: "ran out of time"
        case .stopped: "was stopped"
        }
        let said = errorText.trimmingCharacters(in: .whitespacesAndNewlines)
        return MediaFailure(IOError(.library, "\(how) without saying why", path: program, cause: said.isEmpty ? nil : String(said.suffix(2000))))
    }

    /// Runs the program with `arguments` and nothing on its standard input or output; nil when it
    /// succeeded, else its failure.
    public static func run(_ arguments: [String]) throws(IOError) -> MediaFailure? {
        let program = try path()
        let process = try ProcessGroup(executable: program, arguments: arguments)
        let ending = process.wait(limitSeconds: 600) { false }
        if ending == .exited(0) { return nil }
        return failure(ending, errorText: String(decoding: process.errorTail.bytes, as: UTF8.self), program: program)
    }
}

/// An error of `medrender-media`'s, as it writes it on its standard error (one JSON line) for
/// medrender to throw as its own: the same category, message, file and cause.
public struct MediaFailure: Codable, Sendable, Hashable {
    /// The kind of an `IOError`; nil for any other error.
    public var kind: IOError.Kind?
    public var category: ErrorCategory
    /// The message as the library words it (a field it names written `{name}`).
    public var message: String
    public var path: String?
    public var cause: String?

    /// An `IOError`, with its kind, file and cause.
    public init(_ error: IOError) {
        (kind, category, message, path, cause) = (error.kind, error.category, error.message, error.path, error.cause)
    }

    /// Any other error: its category and message.
    public init(category: ErrorCategory, message: String) {
        (kind, self.category, self.message) = (nil, category, message)
    }

    /// The failure as an `IOError`: its own when it was one, else one of its category.
    public var ioError: IOError {
        if let kind { return IOError(kind, message, path: path, cause: cause) }
        let kind: IOError.Kind = switch category {
        case .missingInput: .missingInput
        case .badData, .usage: .badData
        case .cannotCreate: .cannotCreate
        case .io: .io
        case .internal: .library
        }
        return IOError(kind, message, path: path, cause: cause)
    }

    /// The failure as one JSON line.
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self) + "\n"
    }
}

/// What `medrender-media decode` writes first on its standard output, one JSON line, before the
/// sound's frames (interleaved Float32 in this machine's byte order).
public struct MediaSoundHeader: Codable, Sendable, Hashable {
    /// The sound's sample rate in hertz.
    public var rate: Int
    public var channels: Int
    /// The frames the container says the stream holds (a hint: a file cut short holds fewer).
    public var frameCount: Int64
    /// The container and codec, such as `M4A (AAC)`.
    public var formatName: String
    /// The file's tags, name and value.
    public var tags: [[String]]

    public init(rate: Int, channels: Int, frameCount: Int64, formatName: String, tags: [[String]]) {
        self.rate = rate
        self.channels = channels
        self.frameCount = frameCount
        self.formatName = formatName
        self.tags = tags
    }
}
