import MedrenderCore

/// Every limit a request's numbers are held to, with its wording, in one place: the command line,
/// the service, a build and the studio check their values here, and name the field in their own
/// terms (`ParameterError.worded(for:)`). The ranges themselves are the model's (`SessionLimits`,
/// `PatternNotation.phaseRange`, `RenderOptions.rateRange`), which a preset is held to as well.
public struct RequestLimit: Sendable {
    /// The field, as both faces spell it without their marks: `minutes`, `hold-in`.
    public let field: String
    /// Says how to fix a value out of range: `give 0 to 3600 seconds`.
    public let advice: String
    private let allows: @Sendable (Double) -> Bool

    init(_ field: String, _ advice: String, allows: @escaping @Sendable (Double) -> Bool) {
        self.field = field
        self.advice = advice
        self.allows = allows
    }

    init(_ field: String, _ range: ClosedRange<Double>, _ advice: String) {
        self.init(field, advice) { range.contains($0) }
    }

    /// Whether `value` is in range (a number that is not finite never is).
    public func contains(_ value: Double) -> Bool { value.isFinite && allows(value) }

    /// Throws the field's error when `value` is given and out of range; `shown` is the value as
    /// the message gives it (the value itself by default).
    public func check(_ value: Double?, shown: String? = nil) throws(ParameterError) {
        guard let value, !contains(value) else { return }
        throw ParameterError(field, value: shown ?? "\(value)", "is out of range; \(advice)")
    }

    /// `check` for a whole number.
    public func check(_ value: Int?) throws(ParameterError) {
        guard let value else { return }
        try check(Double(value), shown: "\(value)")
    }
}

/// The limits of `RequestLimit`, by field.
public enum RequestLimits {
    public static let minutes = RequestLimit("minutes", "give a number of minutes above 0 and up to 1440 (24 h)") {
        $0 > 0 && $0 <= SessionLimits.mostMinutes
    }
    public static let cycles = RequestLimit("cycles", Double(SessionLimits.cycles.lowerBound)...Double(SessionLimits.cycles.upperBound),
                                            "give 1 to 100000")
    public static let rate = RequestLimit("rate", Double(RenderOptions.rateRange.lowerBound)...Double(RenderOptions.rateRange.upperBound),
                                          "give 8000 to 192000 Hz")
    public static let settle = RequestLimit("settle", SessionLimits.seconds, "give 0 to 3600 seconds")
    public static let closing = RequestLimit("closing", SessionLimits.seconds, "give 0 to 3600 seconds")
    public static let seed = RequestLimit("seed", 0...Double(Int32.max), "give 0 to 2147483647")
    public static let quality = RequestLimit("quality", -1...10, "use -1 to 10 (as oggenc)")
    public static let channels = RequestLimit("channels", "use 1 or 2") { $0 == 1 || $0 == 2 }
    public static let loudness = RequestLimit("loudness", SessionLimits.loudness, "give -70 to -5 LUFS")
    public static let truePeak = RequestLimit("true-peak", SessionLimits.truePeak, "give -20 to 0 dBTP")
    public static let threads = RequestLimit("threads", 1...1024, "give 1 to 1024 cores")
    /// A layer's level, as a preset's `level:` takes it.
    public static let ambienceLevel = RequestLimit("ambience-level", -70...(-10), "give -70 to -10 LUFS")
    public static let voiceLevel = RequestLimit("voice-level", -70...(-10), "give -70 to -10 LUFS")
    /// The ambience's dip under the voice, as a preset's `voice.duck` takes it.
    public static let duck = RequestLimit("duck", -40...0, "give -40 to 0 dB (0: no dip)")
    /// A guided script's pace, as a preset's `guide.pace` takes it.
    public static let pace = RequestLimit("pace", Double(SessionLimits.pace.lowerBound)...Double(SessionLimits.pace.upperBound),
                                          "give 50 to 250 words a minute (120 is a meditation teacher's)")

    /// Where a part of the session starts and ends, in seconds from its start (the session's
    /// length, checked once it is planned, bounds them too).
    public static let partStart = RequestLimit("start", "give 0 or more seconds, up to 86400 (24 h)") { $0 >= 0 && $0 <= 86400 }
    public static let partEnd = RequestLimit("end", "give more than 0 seconds, up to 86400 (24 h)") { $0 > 0 && $0 <= 86400 }

    /// A phase given in seconds (`inhale`, `hold-in`, `exhale`, `hold-out`).
    public static func phase(_ field: String) -> RequestLimit {
        RequestLimit(field, PatternNotation.phaseRange, "give 0 to 300 seconds")
    }

    /// The most bytes a tag's text takes.
    public static let tagBytes = 1024

    /// Throws when a tag's text, by field, is longer than `tagBytes` (the first such field in
    /// name order).
    public static func checkTags(_ tags: [String: String?]) throws(ParameterError) {
        let lengths = tags.compactMap { field, text in text.map { (field: field, bytes: $0.utf8.count) } }
        if let long = lengths.filter({ $0.bytes > tagBytes }).min(by: { $0.field < $1.field }) {
            throw ParameterError(long.field, "is \(long.bytes) bytes of text; a tag takes at most \(tagBytes): shorten it")
        }
    }
}
