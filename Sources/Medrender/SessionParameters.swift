import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A session asked for by name and options, as the command line and the service take them: the
/// preset, its length, the pattern and phase overrides, the rate, channels, layers, loudness,
/// format and tags. The values that arrive as text and name a choice (format, layers, bits, rate)
/// are typed here, each face reading its text through `RequestValues.swift`; `validate` checks the
/// ranges and the combinations, as `ParameterError`s that each face words in its own terms
/// (`--minutes` / `minutes=`).
public struct SessionParameters: Sendable, Hashable, Encodable {
    public var preset: String
    public var minutes: Double?
    public var cycles: Int?
    public var rate = 48000
    public var pattern: String?
    public var inhale: Double?
    public var holdIn: Double?
    public var exhale: Double?
    public var holdOut: Double?
    public var channels = 2
    /// The sample format of WAV and FLAC (16-bit when nil).
    public var bits: SampleFormat?
    /// −1…10, as oggenc.
    public var quality = 4.0
    /// The format; nil when the output's extension says it (OGG for a stream).
    public var format: FormatName?
    public var layers = Set(Layer.allCases)
    public var loudness: Double?
    public var truePeak: Double?
    public var title: String?
    public var artist: String?
    public var album: String?
    public var date: String?
    public var comment: String?
    /// The cover image (`--cover`), instead of the preset's.
    public var cover: String?
    public var stockFallback = false
    /// `--voice ENGINE[:NAME]`, `--language CODE`, `--minutes fit` (SessionParameters+Guide.swift).
    public var voice: String?
    public var language: String?
    public var fitToGuide = false
    /// Seconds before the first breath, 0…3600, instead of the preset's `settle`.
    public var settle: Double?
    /// The least seconds after the last breath, 0…3600, instead of the preset's `closing`.
    public var closing: Double?
    /// Beds by name, comma-separated (`rain,ocean`), or `none`, instead of the preset's ambience.
    public var ambience: String?
    /// Leaves the preset's recorded voice out of the session (intro, outro, prompts, clips, track);
    /// `--no-voice`. A guided script (`guide:`) still speaks: its voice is `voice`.
    public var noVoice = false
    /// The bell sound (start, end and timed bells), or `none` for no bells.
    public var bells: String?
    /// Seed for loop start offsets and dither, 0…2147483647, instead of the preset's.
    public var seed: Int?

    public init(preset: String) { self.preset = preset }

    /// The phase overrides given, in playing order.
    var phaseOverrides: [(PhaseKind, String, Double)] {
        [(PhaseKind.inhale, "inhale", inhale), (.holdIn, "hold-in", holdIn), (.exhale, "exhale", exhale),
         (.holdOut, "hold-out", holdOut)].compactMap { kind, name, value in value.map { (kind, name, $0) } }
    }

    /// Checks the session's options: length, rate, pattern and phases.
    public func validateSession() throws(ParameterError) {
        if minutes != nil, cycles != nil { throw ParameterError("minutes", "and {cycles} are both given; give one of them") }
        if let minutes, !(minutes.isFinite && minutes > 0 && minutes <= SessionLimits.mostMinutes) {
            throw ParameterError("minutes", value: "\(minutes)", "is out of range; give a number of minutes above 0 and up to 1440 (24 h)")
        }
        if let cycles, !SessionLimits.cycles.contains(cycles) {
            throw ParameterError("cycles", value: "\(cycles)", "is out of range; give 1 to 100000")
        }
        guard RenderOptions.rateRange.contains(rate) else {
            throw ParameterError("rate", value: "\(rate)", "is out of range; give 8000 to 192000 Hz")
        }
        _ = try parsedPattern()
        for (name, value) in [("settle", settle), ("closing", closing)] {
            if let value, !(value.isFinite && SessionLimits.seconds.contains(value)) {
                throw ParameterError(name, value: "\(value)", "is out of range; give 0 to 3600 seconds")
            }
        }
        if let seed, !(0...Int(Int32.max)).contains(seed) {
            throw ParameterError("seed", value: "\(seed)", "is out of range; give 0 to 2147483647")
        }
        _ = try ambienceNames()
        if let bells, bells.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ParameterError("bells", "needs a sound's name (such as bell), or none for no bells")
        }
        for (_, name, value) in phaseOverrides where !(value.isFinite && PatternNotation.phaseRange.contains(value)) {
            throw ParameterError(name, value: "\(value)", "is out of range; give 0 to 300 seconds")
        }
    }

    /// Checks how it is encoded: quality, channels, bits.
    public func validateEncoding() throws(ParameterError) {
        guard quality.isFinite, (-1...10).contains(quality) else {
            throw ParameterError("quality", value: "\(quality)", "is out of range; use -1 to 10 (as oggenc)")
        }
        guard channels == 1 || channels == 2 else { throw ParameterError("channels", value: "\(channels)", "is out of range; use 1 or 2") }
    }

    /// Checks the mix's options: tags, loudness, ceiling, layers, and the format against the bits.
    public func validateMix(output: String?) throws(ParameterError) {
        for (option, value) in [("title", title), ("artist", artist), ("album", album), ("date", date), ("comment", comment)] {
            if let value, value.utf8.count > 1024 {
                throw ParameterError(option, "is \(value.utf8.count) bytes of text; a tag takes at most 1024: shorten it")
            }
        }
        if let loudness, !(loudness.isFinite && SessionLimits.loudness.contains(loudness)) {
            throw ParameterError("loudness", value: "\(loudness)", "is out of range; give -70 to -5 LUFS")
        }
        if let truePeak, !(truePeak.isFinite && SessionLimits.truePeak.contains(truePeak)) {
            throw ParameterError("true-peak", value: "\(truePeak)", "is out of range; give -20 to 0 dBTP")
        }
        let format = try outputFormat(output: output)
        if case .flac(.float32) = format { throw ParameterError("bits", value: "32f", "is for WAV; FLAC takes 16 or 24") }
        switch format {
        case .ogg, .opus, .mp3:
            if let bits { throw ParameterError("bits", value: bits.rawValue, "is for WAV and FLAC; \(format.fileExtension) is compressed") }
        default: break
        }
    }

    /// Everything: what `validateSession`, `validateEncoding` and `validateMix` check.
    public func validate(output: String?) throws(ParameterError) {
        try validateSession()
        try validateEncoding()
        try validateMix(output: output)
    }

    /// The beds `ambience` names (empty for `none`), or nil when it is not given.
    public func ambienceNames() throws(ParameterError) -> [String]? {
        guard let ambience else { return nil }
        if ambience == "none" { return [] }
        let names = ambience.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }
        if names.contains(where: \.isEmpty) {
            throw ParameterError("ambience", value: ambience, "has an empty name; give beds as NAME[,NAME] (such as rain,ocean), or none")
        }
        return names
    }

    /// `session` with the settle, closing, ambience, voice, bells and seed given here in place of
    /// the preset's.
    public func applyOverrides(to session: inout Session) throws(ParameterError) {
        if let settle { session.settle = SessionTime(seconds: settle)! }
        if let closing { session.closing = SessionTime(seconds: closing)! }
        if let seed { session.seed = UInt64(seed) }
        if let names = try ambienceNames() {
            let level = session.ambience.first?.levelLUFS ?? AmbienceBed(sound: SoundRef("rain")).levelLUFS
            session.ambience = names.map { AmbienceBed(sound: SoundRef($0), levelLUFS: level) }
        }
        if noVoice {
            let kept = session.voice
            session.voice = VoiceSettings()
            session.voice.levelLUFS = kept.levelLUFS
        }
        if let bells {
            if bells == "none" {
                session.bells = BellSettings()
            } else {
                let sound = SoundRef(bells)
                if session.bells.start == nil, session.bells.end == nil, session.bells.interval == nil {
                    session.bells.start = sound
                    session.bells.end = sound
                } else {
                    if session.bells.start != nil { session.bells.start = sound }
                    if session.bells.end != nil { session.bells.end = sound }
                    if session.bells.interval != nil { session.bells.interval = sound }
                }
            }
        }
    }

    public func parsedPattern() throws(ParameterError) -> BreathPattern? {
        guard let pattern else { return nil }
        do {
            return try PatternNotation.parse(pattern)
        } catch {
            throw ParameterError("pattern", value: pattern, ": \(error.description)")
        }
    }

    /// The format from `format`, or from `output`'s extension (OGG for a stream, `output` nil or `-`).
    public func outputFormat(output: String?) throws(ParameterError) -> OutputFormat {
        if let format {
            let f = format.format(quality: quality, bits: bits)
            // A name that says another format would mislead every player that trusts it.
            if let output, let named = OutputFormat.forPath(output, quality: quality, bits: bits),
                named.fileExtension != f.fileExtension
            {
                throw ParameterError("format", value: format.rawValue, "does not match the output \(output), which ends in .\(named.fileExtension); "
                    + "end the name in .\(f.fileExtension) or drop {format}")
            }
            return f
        }
        guard let output, output != "-" else { return .ogg(quality: quality) }
        guard let f = OutputFormat.forPath(output, quality: quality, bits: bits) else {
            throw ParameterError("output", value: output, "has no extension that names a format; end it in .ogg, .wav, .flac, .opus or .mp3, or give {format}")
        }
        return f
    }

    /// The preset from `library`, with the pattern and phase overrides applied (checked against
    /// its limits), and the length asked for.
    public func loadSession(library: PresetLibrary) throws -> (session: Session, file: String, length: SessionLength) {
        let file = try library.presetPath(preset)
        var session = try PresetDecoder.load(path: file)
        try applyGuide(to: &session)
        var changes: [(parameter: String, value: String)] = []
        if let replacement = try parsedPattern() {
            session.replacePattern(with: replacement)
            changes.append(("pattern", pattern!))
        }
        for (kind, name, value) in phaseOverrides {
            session.override(kind, with: SessionTime(seconds: value)!)
            changes.append((name, "\(value)"))
        }
        if let first = changes.first, let violation = session.limitViolation {
            let also = changes.dropFirst().map { "\($0.parameter) \($0.value)" }
            throw ParameterError(first.parameter, value: first.value,
                                 (also.isEmpty ? "" : "(with \(also.joined(separator: ", "))) ") + "goes past the limits of \(file): \(violation)",
                                 category: .badData)
        }
        try applyOverrides(to: &session)
        let length: SessionLength
        if let minutes {
            length = .duration(SessionTime(minutes: minutes)!)
        } else if let cycles {
            length = .cycles(cycles)
        } else {
            length = session.defaultLength
        }
        return (session, file, length)
    }

    /// The whole request: the session with the tags, loudness and ceiling applied, at the rate the
    /// format takes (`rateNote` says when it differs from the one asked for).
    public func request(library: PresetLibrary, output: String) throws -> (request: RenderRequest, rateNote: String?) {
        try validate(output: output)
        var (session, file, length) = try loadSession(library: library)
        if let title { session.metadata.title = title }
        if let artist { session.metadata.artist = artist }
        if let album { session.metadata.album = album }
        if let date { session.metadata.date = date }
        if let comment { session.metadata.comment = comment }
        if let cover { session.metadata.cover = URL(fileURLWithPath: cover).path }
        if let loudness { session.master.loudnessLUFS = loudness }
        if let truePeak { session.master.truePeakDBTP = truePeak }
        let format = try outputFormat(output: output)
        let actualRate = format.rate(for: rate)
        let note = actualRate == rate ? nil
            : "\(format.fileExtension) takes \(format.allowedRates!.map(String.init).joined(separator: ", ")) Hz; rendering at \(actualRate) Hz"
        let options = RenderOptions(rate: actualRate, channels: channels, length: length, layers: layers)
        var request = RenderRequest(session: session, presetFile: file, options: options, format: format,
                                    outputPath: output, library: library)
        request.stockFallback = stockFallback
        return (request, note)
    }
}
