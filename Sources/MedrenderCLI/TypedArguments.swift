import ArgumentParser
import Medrender
import MedrenderCore
import MedrenderIO

// The request's typed values as the command line reads them: the parser turns the text into the
// value, so a command holds a `FormatName`, a set of layers, a `SampleFormat` or a rate in hertz,
// never a string to parse later. The names are the library's own (`RequestValues.swift`), as the
// service reads its query; an unknown name is the parser's usage error, with the names listed.

extension FormatName: ExpressibleByArgument {
    public init?(argument: String) { self.init(spelled: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
    public var defaultValueDescription: String { rawValue }
}

extension SampleFormat: ExpressibleByArgument {}

extension CueSheetFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// `--layers cues,voice`: the layers to mix, in any order.
struct LayerList: ExpressibleByArgument, Hashable {
    var layers: Set<Layer>
    init(_ layers: Set<Layer> = Set(Layer.allCases)) { self.layers = layers }
    init?(argument: String) {
        guard let layers = try? Layer.parseList(argument) else { return nil }
        self.layers = layers
    }
    static var allValueStrings: [String] { Layer.allCases.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    var defaultValueDescription: String { Layer.listed(layers) }
}

/// `--format ogg,wav` (build): formats in the order given, each once.
struct FormatList: ExpressibleByArgument, Hashable {
    var formats: [FormatName]
    init(_ formats: [FormatName]) { self.formats = formats }
    init?(argument: String) {
        var formats: [FormatName] = []
        for item in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let name = FormatName(spelled: item.trimmingCharacters(in: .whitespaces)) else { return nil }
            if !formats.contains(name) { formats.append(name) }
        }
        self.formats = formats
    }
    static var allValueStrings: [String] { FormatName.allCases.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    var defaultValueDescription: String { formats.map(\.rawValue).joined(separator: ",") }
}

/// `--start 90`, `--start 1:30` or `--start 1:02:03.5`: a point in the session, in seconds, or in
/// minutes and seconds, or in hours, minutes and seconds, as `sox trim` reads it (its range is the
/// request's to check).
struct ClockArgument: ExpressibleByArgument, Hashable {
    var seconds: Double
    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = Double(parts.last!), last.isFinite else { return nil }
        var seconds = last
        for (place, part) in parts.dropLast().reversed().enumerated() {
            // Seconds are under 60, and so are minutes after hours (`1:75` and `1:75:00` are no times).
            guard let whole = Int(part), whole >= 0, (0..<60).contains(last), place == 1 || parts.count < 3 || whole < 60 else { return nil }
            seconds += Double(whole) * (place == 0 ? 60 : 3600)
        }
        self.seconds = seconds
    }
}

/// `--rate 44100`, `--rate 44.1k` or `--rate 48kHz`: a rate in whole hertz (its range is the
/// request's to check, with the range in its message).
struct RateArgument: ExpressibleByArgument, Hashable {
    var hertz: Int
    init(_ hertz: Int) { self.hertz = hertz }
    init?(argument: String) {
        guard let hertz = SampleRateText.hertz(argument) else { return nil }
        self.hertz = hertz
    }
    var defaultValueDescription: String { "\(hertz)" }
}
