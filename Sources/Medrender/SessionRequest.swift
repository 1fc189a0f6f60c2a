import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A session asked for by preset and typed values, as the command line, the service and a
/// build's index ask for it: the preset, its length, the pattern and phase overrides, the rate,
/// channels, layers, loudness, format, tags, voice and language. Each face reads its text into
/// these types once (`RequestValues.swift`); `renderRequest(library:destination:)` checks every
/// value against its limit (`RequestLimits`) once, before any file is read, as `ParameterError`s
/// that each face words in its own terms (`--minutes` / `minutes=`).
public struct SessionRequest: Sendable, Hashable, Encodable {
    public var preset: String
    public var length = LengthChoice.preset
    public var rate = 48000
    public var pattern: PatternChoice?
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
    /// The cover image, instead of the preset's.
    public var cover: URL?
    /// Replace a missing sound with the bundled sound of the same role.
    public var stockFallback = false
    /// The guided script's voice, instead of the preset's.
    public var voice: GuideVoice?
    /// The words' language, a BCP 47 tag (`de`, `pt-BR`), instead of the preset's; the library's
    /// catalogs say which there are.
    public var language: String?
    /// The guided script's pace, in words a minute, instead of the preset's (lines with a pace of
    /// their own keep it).
    public var pace: Int?
    /// Seconds before the first breath, instead of the preset's `settle`.
    public var settle: Double?
    /// The least seconds after the last breath, instead of the preset's `closing`.
    public var closing: Double?
    /// Beds instead of the preset's ambience.
    public var ambience: BedChoice?
    /// Leaves the preset's recorded voice out of the session (intro, outro, prompts, clips,
    /// track). A guided script (`guide:`) still speaks: its voice is `voice`.
    public var noVoice = false
    /// The bell sound (start, end and timed bells), instead of the preset's.
    public var bells: BellChoice?
    /// Seed for loop start offsets and dither, instead of the preset's.
    public var seed: Int?
    /// Every ambience bed's level, in LUFS, instead of the preset's (as a bed's `level:`).
    public var ambienceLevel: Double?
    /// The voice's level, in LUFS, instead of the preset's (as `voice.level`).
    public var voiceLevel: Double?
    /// How far the ambience dips under the voice, in dB, instead of the preset's (as `voice.duck`).
    public var duck: Double?
    /// Only a part of the session (`start`/`end`), at the whole's loudness.
    public var part: SessionPart?

    public init(preset: String) { self.preset = preset }

    /// The phase overrides given, in playing order, with their fields.
    var phaseOverrides: [(kind: PhaseKind, field: String, seconds: Double)] {
        [(PhaseKind.inhale, "inhale", inhale), (.holdIn, "hold-in", holdIn), (.exhale, "exhale", exhale),
         (.holdOut, "hold-out", holdOut)].compactMap { kind, name, value in value.map { (kind, name, $0) } }
    }

    /// Checks what chooses the session against its limits: length, rate, phases, settle, closing, seed.
    func validateSession() throws(ParameterError) {
        try length.check()
        try RequestLimits.rate.check(rate)
        for (_, field, seconds) in phaseOverrides { try RequestLimits.phase(field).check(seconds) }
        try RequestLimits.settle.check(settle)
        try RequestLimits.closing.check(closing)
        try RequestLimits.seed.check(seed)
        try RequestLimits.ambienceLevel.check(ambienceLevel)
        try RequestLimits.voiceLevel.check(voiceLevel)
        try RequestLimits.duck.check(duck)
        try RequestLimits.pace.check(pace)
    }

    /// Checks how it is encoded and mastered: quality, channels, tags, loudness, ceiling, and
    /// the format against the destination and the bits.
    func validateOutput(for destination: RenderDestination) throws(ParameterError) {
        try RequestLimits.quality.check(quality)
        try RequestLimits.channels.check(channels)
        try RequestLimits.checkTags(["title": title, "artist": artist, "album": album, "date": date, "comment": comment])
        try RequestLimits.loudness.check(loudness)
        try RequestLimits.truePeak.check(truePeak)
        let format = try outputFormat(for: destination)
        if case .flac(.float32) = format { throw ParameterError("bits", value: "32f", "is for WAV; FLAC takes 16 or 24") }
        switch format {
        case .ogg, .opus, .mp3:
            if let bits { throw ParameterError("bits", value: bits.rawValue, "is for WAV and FLAC; \(format.fileExtension) is compressed") }
        default: break
        }
    }

    /// The format from `format`, or from the file's extension (OGG for a stream).
    public func outputFormat(for destination: RenderDestination) throws(ParameterError) -> OutputFormat {
        let path = destination.filePath
        if let format {
            let f = format.format(quality: quality, bits: bits)
            // A name that says another format would mislead every player that trusts it.
            if let path, let named = OutputFormat.forPath(path, quality: quality, bits: bits), named.fileExtension != f.fileExtension {
                throw ParameterError("format", value: format.rawValue, "does not match the output \(path), which ends in .\(named.fileExtension); "
                    + "end the name in .\(f.fileExtension) or drop {format}")
            }
            return f
        }
        guard let path else { return .ogg(quality: quality) }
        guard let f = OutputFormat.forPath(path, quality: quality, bits: bits) else {
            throw ParameterError("output", value: path, "has no extension that names a format; end it in .ogg, .wav, .flac, .opus or .mp3, or give {format}")
        }
        return f
    }

    /// The preset from `library`, checked and with every value given here applied, and the length
    /// asked for: what a cue sheet or a plot needs.
    public func loadSession(library: PresetLibrary) throws -> (session: Session, file: String, length: SessionLength) {
        try validateSession()
        return try loaded(library: library)
    }

    /// The whole request, checked once: the session with the tags, loudness and ceiling applied,
    /// at the rate the format takes (`rateNote` says when it differs from the one asked for), to
    /// `destination`.
    public func renderRequest(library: PresetLibrary, destination: RenderDestination) throws -> (request: RenderRequest, rateNote: String?) {
        try validateSession()
        try validateOutput(for: destination)
        var (session, file, length) = try loaded(library: library)
        applyMaster(to: &session)
        let format = try outputFormat(for: destination)
        let actualRate = format.rate(for: rate)
        let note = actualRate == rate ? nil
            : "\(format.fileExtension) takes \(format.allowedRates!.map(String.init).joined(separator: ", ")) Hz; rendering at \(actualRate) Hz"
        let options = RenderOptions(rate: actualRate, channels: channels, length: length, layers: layers)
        var request = RenderRequest(session: session, presetFile: file, options: options, format: format,
                                    destination: destination, library: library)
        request.stockFallback = stockFallback
        request.part = part
        return (request, note)
    }

    /// The preset loaded, with the guide's, the pattern's and the other overrides applied, and
    /// the length; the values are already checked.
    private func loaded(library: PresetLibrary) throws -> (session: Session, file: String, length: SessionLength) {
        let file = try library.presetPath(preset)
        let languages = try library.languages()
        var session = try PresetDecoder.load(path: file, languages: languages)
        try applyGuide(to: &session, languages: languages)
        try applyPattern(to: &session, file: file)
        applyOverrides(to: &session)
        let sessionLength: SessionLength
        switch length {
        case .minutes(let minutes): sessionLength = .duration(SessionTime(minutes: minutes)!)
        case .cycles(let cycles): sessionLength = .cycles(cycles)
        case .preset, .fitToGuide: sessionLength = session.defaultLength
        }
        return (session, file, sessionLength)
    }

    /// Applies the voice, the language (one of `languages`) and `fit` to a loaded session.
    public func applyGuide(to session: inout Session, languages: LanguageCatalog = .stock) throws(ParameterError) {
        if let language { session.language = try languages.language(parsing: language) }
        if let voice, session.guide != nil {
            session.guide!.voice = voice
            session.guide!.fallbacks = []
            session.guide!.voiceLocation = nil
        }
        if let pace, session.guide != nil { session.guide!.pace = pace }
        if length == .fitToGuide { session.fitsGuide = true }
        if session.fitsGuide, session.guide == nil, session.voice.track == nil {
            throw ParameterError("minutes", value: "fit", "sizes a session to its guided script or its voice track, and the preset \(preset) "
                + "has neither 'guide:' nor 'voice.track'; give a number of minutes")
        }
    }

    /// Replaces the pattern and the phases given, checked against the preset's limits.
    private func applyPattern(to session: inout Session, file: String) throws(ParameterError) {
        var changes: [(field: String, value: String)] = []
        if let pattern {
            session.replacePattern(with: pattern.pattern)
            changes.append(("pattern", pattern.notation))
        }
        for (kind, field, seconds) in phaseOverrides {
            session.override(kind, with: SessionTime(seconds: seconds)!)
            changes.append((field, "\(seconds)"))
        }
        if let first = changes.first, let violation = session.limitViolation {
            let also = changes.dropFirst().map { "\($0.field) \($0.value)" }
            throw ParameterError(first.field, value: first.value,
                                 (also.isEmpty ? "" : "(with \(also.joined(separator: ", "))) ") + "goes past the limits of \(file): \(violation)",
                                 category: .badData)
        }
    }

    /// `session` with the settle, closing, ambience, voice, bells and seed given here in place of
    /// the preset's.
    func applyOverrides(to session: inout Session) {
        if let settle { session.settle = SessionTime(seconds: settle)! }
        if let closing { session.closing = SessionTime(seconds: closing)! }
        if let seed { session.seed = UInt64(seed) }
        if let ambience {
            let level = session.ambience.first?.levelLUFS ?? AmbienceBed(sound: SoundRef("rain")).levelLUFS
            session.ambience = ambience.names.map { AmbienceBed(sound: SoundRef($0), levelLUFS: level) }
        }
        if noVoice {
            let kept = session.voice
            session.voice = VoiceSettings()
            session.voice.levelLUFS = kept.levelLUFS
        }
        applyLevels(to: &session)
        switch bells {
        case nil: break
        case .noBells: session.bells = BellSettings()
        case .sound(let name): session.bells.replaceSound(with: SoundRef(name))
        }
    }

    /// The layers' levels and the duck given here in place of the preset's: every bed's (a
    /// segment's own too), the voice's, and the duck's depth.
    private func applyLevels(to session: inout Session) {
        if let ambienceLevel {
            for index in session.ambience.indices { session.ambience[index].levelLUFS = ambienceLevel }
            for index in session.segments.indices { session.segments[index].ambience?.levelLUFS = ambienceLevel }
        }
        if let voiceLevel { session.voice.levelLUFS = voiceLevel }
        if let duck {
            session.voice.duckDecibels = duck
            session.voice.duckGiven = true
        }
    }

    /// The tags, cover, loudness and ceiling given here in place of the preset's.
    private func applyMaster(to session: inout Session) {
        if let title { session.metadata.title = title }
        if let artist { session.metadata.artist = artist }
        if let album { session.metadata.album = album }
        if let date { session.metadata.date = date }
        if let comment { session.metadata.comment = comment }
        if let cover { session.metadata.cover = cover.path }
        if let loudness { session.master.loudnessLUFS = loudness }
        if let truePeak { session.master.truePeakDBTP = truePeak }
    }
}

extension BellSettings {
    /// Every bell the preset rings, rung with `sound`; a preset without bells gets a start and an
    /// end bell.
    mutating func replaceSound(with sound: SoundRef) {
        if start == nil, end == nil, interval == nil {
            start = sound
            end = sound
        } else {
            if start != nil { start = sound }
            if end != nil { end = sound }
            if interval != nil { interval = sound }
        }
    }
}
