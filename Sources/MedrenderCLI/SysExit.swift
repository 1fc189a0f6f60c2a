import MedrenderCore

/// Exit codes from sysexits(3), the ones medrender uses: the command line's answer to each error
/// category.
enum SysExit: Int32, Sendable {
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

    init(_ category: ErrorCategory) {
        switch category {
        case .usage: self = .usage
        case .badData: self = .dataError
        case .missingInput: self = .noInput
        case .cannotCreate: self = .cannotCreate
        case .io: self = .ioError
        case .internal: self = .software
        }
    }
}
