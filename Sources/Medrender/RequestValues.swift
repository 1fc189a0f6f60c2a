import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// The typed values of a request that arrive as text: a format's name, a list of layers, a
/// sample format, a rate, a length, a pattern, beds, bells, a language, a voice. Each face reads its text through these (the command line through
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

/// How long a session runs: as its preset says, a number of minutes, whole breath cycles, or as
/// long as its guided script or voice track (`fit`).
public enum LengthChoice: Sendable, Hashable, Encodable {
    case preset
    case minutes(Double)
    case cycles(Int)
    case fitToGuide

    /// The length the faces' two fields give (`minutes` as a number or `fit`, `cycles`), or the
    /// error when both are given.
    public init(minutes: Double?, fit: Bool = false, cycles: Int?) throws(ParameterError) {
        if (minutes != nil || fit), cycles != nil { throw ParameterError("minutes", "and {cycles} are both given; give one of them") }
        if fit {
            self = .fitToGuide
        } else if let minutes {
            self = .minutes(minutes)
        } else if let cycles {
            self = .cycles(cycles)
        } else {
            self = .preset
        }
    }

    /// Checks the number given against its limit (`RequestLimits`).
    func check() throws(ParameterError) {
        switch self {
        case .minutes(let minutes): try RequestLimits.minutes.check(minutes)
        case .cycles(let cycles): try RequestLimits.cycles.check(cycles)
        case .preset, .fitToGuide: break
        }
    }
}

/// A breath pattern in the faces' notation (`4-7-8-0`), parsed; it keeps the text for messages.
public struct PatternChoice: Sendable, Hashable, Encodable {
    public let notation: String
    public let pattern: BreathPattern

    /// The pattern `text` writes, or the error that says what is wrong with it.
    public init(parsing text: String) throws(ParameterError) {
        do {
            pattern = try PatternNotation.parse(text)
        } catch {
            throw ParameterError("pattern", value: text, ": \(error.description)")
        }
        notation = text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(pattern.description)
    }
}

/// The ambience beds asked for instead of the preset's: none, or beds by name.
public enum BedChoice: Sendable, Hashable, Encodable {
    case noBeds
    case beds([String])

    /// `none`, or names comma-separated (`rain,ocean`); an empty name is an error.
    public init(parsing text: String) throws(ParameterError) {
        if text == "none" {
            self = .noBeds
            return
        }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }
        if names.contains(where: \.isEmpty) {
            throw ParameterError("ambience", value: text, "has an empty name; give beds as NAME[,NAME] (such as rain,ocean), or none")
        }
        self = .beds(names)
    }

    /// The beds' names (empty for `none`).
    public var names: [String] {
        if case .beds(let names) = self { names } else { [] }
    }
}

/// The bell sound asked for instead of the preset's (start, end and timed bells): none, or a sound.
public enum BellChoice: Sendable, Hashable, Encodable {
    case noBells
    case sound(String)

    /// `none`, or a sound's name; a blank one is an error.
    public init(parsing text: String) throws(ParameterError) {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw ParameterError("bells", "needs a sound's name (such as bell), or none for no bells") }
        self = name == "none" ? .noBells : .sound(name)
    }
}

extension LanguageCatalog {
    /// The language the BCP 47 tag `code` names (`en`, `pt-BR`, `pt-br`; `pt` picks `pt-BR`), or
    /// the error that lists the languages there are.
    public func language(parsing code: String, parameter: String = "language") throws(ParameterError) -> Language {
        guard let value = language(code) else {
            throw ParameterError(parameter, value: code, "is not one medrender has words for; choose one of: "
                + tags.joined(separator: ", ") + " (or add Languages/\(code).yml to your library)")
        }
        return value
    }
}

extension GuideVoice {
    /// The voice `text` names, ENGINE[:NAME], or the error that says what is wrong with it.
    public init(parsing text: String, parameter: String = "voice") throws(ParameterError) {
        do {
            self = try PresetDecoder.guideVoice(text)
        } catch {
            throw ParameterError(parameter, value: text, ": \(error.message)")
        }
    }

    /// The voice as written: `festival`, `espeak-ng:de`.
    public var notation: String { engine.rawValue + (name.map { ":\($0)" } ?? "") }
}
