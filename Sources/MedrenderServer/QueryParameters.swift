import Medrender
import MedrenderCore
import MedrenderIO

/// The query of `/render` and `/cues` as a typed request: the command line's options, by the
/// same names without their dashes (`minutes`, `hold-in`, `true-peak`…). A value that is not of
/// its kind, or a name that is not an option, is a `ParameterError`, worded as the query names it
/// (`minutes=abc is not a number`).
enum QueryParameters {
    static let names = ["preset", "minutes", "cycles", "rate", "pattern", "inhale", "hold-in", "exhale", "hold-out", "channels",
                        "bits", "quality", "format", "layers", "loudness", "true-peak", "title", "artist", "album", "fallback",
                        "settle", "closing", "ambience", "no-voice", "bells", "seed", "date", "comment", "voice", "language",
                        "ambience-level", "voice-level", "duck", "pace"]

    static func parse(_ pairs: [(String, String)]) throws(ParameterError) -> SessionRequest {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard names.contains(name) else {
                throw ParameterError(name, "is not a parameter; the parameters are the command line's options: \(names.joined(separator: ", "))")
            }
            guard values[name] == nil else { throw ParameterError(name, "is given twice; give it once") }
            values[name] = value
        }
        guard let preset = values["preset"], !preset.isEmpty else {
            throw ParameterError("preset", "is missing: name a preset (GET /presets lists them)")
        }
        guard !preset.contains("/"), !preset.hasSuffix(".yaml"), !preset.hasSuffix(".yml") else {
            throw ParameterError("preset", value: preset, "is not a name: the service renders presets of its library by name (GET /presets lists them)")
        }
        func number(_ name: String) throws(ParameterError) -> Double? {
            guard let text = values[name] else { return nil }
            guard let value = Double(text) else { throw ParameterError(name, value: text, "is not a number") }
            return value
        }
        func integer(_ name: String) throws(ParameterError) -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text) else { throw ParameterError(name, value: text, "is not a whole number") }
            return value
        }
        var p = SessionRequest(preset: preset)
        // `minutes=fit`: as long as the preset's guided script.
        let fit = values["minutes"] == "fit"
        p.length = try LengthChoice(minutes: fit ? nil : try number("minutes"), fit: fit, cycles: try integer("cycles"))
        p.rate = try values["rate"].map { (text) throws(ParameterError) in try SampleRateText.parse(text) } ?? p.rate
        p.pattern = try values["pattern"].map { (text) throws(ParameterError) in try PatternChoice(parsing: text) }
        p.inhale = try number("inhale")
        p.holdIn = try number("hold-in")
        p.exhale = try number("exhale")
        p.holdOut = try number("hold-out")
        p.channels = try integer("channels") ?? p.channels
        p.bits = try values["bits"].map { (text) throws(ParameterError) in try SampleFormat(parsing: text) }
        p.quality = try number("quality") ?? p.quality
        p.format = try values["format"].map { (text) throws(ParameterError) in try FormatName(parsing: text) } ?? .ogg
        p.layers = try values["layers"].map { (text) throws(ParameterError) in try Layer.parseList(text) } ?? p.layers
        p.loudness = try number("loudness")
        p.truePeak = try number("true-peak")
        p.title = values["title"]
        p.artist = values["artist"]
        p.album = values["album"]
        p.settle = try number("settle")
        p.closing = try number("closing")
        p.ambience = try values["ambience"].map { (text) throws(ParameterError) in try BedChoice(parsing: text) }
        if let noVoice = values["no-voice"] {
            guard ["", "1", "true"].contains(noVoice) else {
                throw ParameterError("no-voice", value: noVoice, "takes no value: give it alone (no-voice or no-voice=1) to leave the recorded voice out")
            }
            p.noVoice = true
        }
        p.bells = try values["bells"].map { (text) throws(ParameterError) in try BellChoice(parsing: text) }
        p.seed = try integer("seed")
        p.ambienceLevel = try number("ambience-level")
        p.voiceLevel = try number("voice-level")
        p.duck = try number("duck")
        p.pace = try integer("pace")
        p.date = values["date"]
        p.comment = values["comment"]
        p.language = values["language"]
        if let voice = values["voice"] {
            // A request names an installed engine; it never names a program for the server to run.
            guard !voice.hasPrefix("command") else {
                throw ParameterError("voice", value: voice, "names a program: the service speaks with festival, espeak-ng, flite or piper (ENGINE[:NAME]); it runs no program a request names")
            }
            let parsed = try GuideVoice(parsing: voice)
            // A Piper voice by name is one of the server's own; a model's path is a file the request names.
            if parsed.engine == .piper, let name = parsed.name, GuideVoice.isModelPath(name) {
                throw ParameterError("voice", value: voice, "names a file: the service speaks Piper voices by name "
                    + "(piper:en_US-joe-medium), found in its own voice folders")
            }
            p.voice = parsed
        }
        if let fallback = values["fallback"] {
            guard fallback == "stock" else { throw ParameterError("fallback", value: fallback, "is not one; the one fallback is 'stock'") }
            p.stockFallback = true
        }
        return p
    }
}
