import MedrenderCore
import MedrenderIO

/// The typed values of a request that arrive as text: a format's name, a list of layers, a
/// sample format, a rate. Each face reads its text through these (the command line through
/// swift-argument-parser's `ExpressibleByArgument`, the service from its query), so the library
/// holds only values it can use and no face parses them its own way.

/// A format by name, before its quality and bits: what `--format` and `format=` take.
public enum FormatName: String, CaseIterable, Hashable, Sendable, Codable {
    case ogg, wav, flac, opus, mp3

    /// The format `name` spells, in any case, `oga` and `wave` too; nil for any other.
    public init?(spelled name: String) {
        switch name.lowercased() {
        case "ogg", "oga": self = .ogg
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "opus": self = .opus
        case "mp3": self = .mp3
        default: return nil
        }
    }

    /// The format `text` names, or the error that gives the names there are.
    public init(parsing text: String, parameter: String = "format") throws(ParameterError) {
        guard let name = FormatName(spelled: text) else {
            throw ParameterError(parameter, value: text, "is not one medrender writes; choose \(Self.choices)")
        }
        self = name
    }

    /// `ogg, wav, flac, opus or mp3`.
    public static var choices: String {
        allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or " + allCases.last!.rawValue
    }

    /// The format at `quality` (lossy) or in `bits` (WAV and FLAC, 16-bit when nil).
    public func format(quality: Double, bits: SampleFormat?) -> OutputFormat {
        switch self {
        case .ogg: .ogg(quality: quality)
        case .wav: .wav(bits ?? .int16)
        case .flac: .flac(bits ?? .int16)
        case .opus: .opus(quality: quality)
        case .mp3: .mp3(quality: quality)
        }
    }
}

extension Layer {
    /// The layers `text` names, comma-separated (`cues,voice`), or the error that says which name
    /// is not a layer.
    public static func parseList(_ text: String, parameter: String = "layers") throws(ParameterError) -> Set<Layer> {
        var result = Set<Layer>()
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmingCharacters(in: .whitespaces) }) {
            guard let layer = Layer(rawValue: name) else {
                throw ParameterError(parameter, value: text, "names an unknown layer '\(name)'; choose from \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            result.insert(layer)
        }
        return result
    }

    /// `layers` as a list reads, in mixing order: `cues,voice,bells`.
    public static func listed(_ layers: Set<Layer>) -> String {
        allCases.filter(layers.contains).map(\.rawValue).joined(separator: ",")
    }
}

extension SampleFormat {
    /// The sample format `text` names (16, 24 or 32f), or the error that gives the three.
    public init(parsing text: String, parameter: String = "bits") throws(ParameterError) {
        guard let format = SampleFormat(rawValue: text) else {
            throw ParameterError(parameter, value: text, "is not supported; use 16, 24 or 32f")
        }
        self = format
    }
}

/// A sample rate as written: whole hertz (`44100`) or kilohertz with a `k` (`44.1k`, `48kHz`).
public enum SampleRateText {
    /// The rate `text` gives in whole hertz, or nil when it is not a rate (not a number, or a
    /// fraction of a hertz). Its range is the request's to check.
    public static func hertz(_ text: String) -> Int? {
        var number = Substring(text.trimmingCharacters(in: .whitespaces))
        var scale = 1.0
        for unit in ["khz", "hz", "k"] where number.lowercased().hasSuffix(unit) {
            number = number.dropLast(unit.count)
            scale = unit == "hz" ? 1 : 1000
            break
        }
        if scale == 1, let whole = Int(number) { return whole }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
        let hz = (value * scale).rounded()
        guard abs(hz - value * scale) < 1e-6, abs(hz) < 1e9 else { return nil }
        return Int(hz)
    }

    /// The rate `text` gives, or the error that says how to write one.
    public static func parse(_ text: String, parameter: String = "rate") throws(ParameterError) -> Int {
        guard let hz = hertz(text) else {
            throw ParameterError(parameter, value: text, "is not a rate; give whole hertz (44100) or kilohertz (44.1k)")
        }
        return hz
    }
}
