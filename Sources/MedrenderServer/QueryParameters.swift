import Medrender

/// The query of `/render` and `/cues` as session parameters: the command line's options, by the
/// same names without their dashes (`minutes`, `hold-in`, `true-peak`…). A value that is not of
/// its kind, or a name that is not an option, is a usage error with the command line's wording.
enum QueryParameters {
    static let names = ["preset", "minutes", "cycles", "rate", "pattern", "inhale", "hold-in", "exhale", "hold-out", "channels",
                        "bits", "quality", "format", "layers", "loudness", "true-peak", "title", "artist", "album", "fallback",
                        "settle", "closing", "ambience", "no-voice", "bells", "seed", "date", "comment", "voice", "language"]

    static func parse(_ pairs: [(String, String)]) throws(RenderError) -> SessionParameters {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard names.contains(name) else {
                throw RenderError("unknown parameter '\(name)'; the parameters are the command line's options: \(names.joined(separator: ", "))",
                                  category: .usage)
            }
            guard values[name] == nil else { throw RenderError("--\(name) is given twice; give it once", category: .usage) }
            values[name] = value
        }
        guard let preset = values["preset"], !preset.isEmpty else {
            throw RenderError("missing 'preset': name a preset (GET /presets lists them)", category: .usage)
        }
        guard !preset.contains("/"), !preset.hasSuffix(".yaml"), !preset.hasSuffix(".yml") else {
            throw RenderError("--preset \(preset): the service renders presets of its library by name (GET /presets lists them)", category: .usage)
        }
        func number(_ name: String) throws(RenderError) -> Double? {
            guard let text = values[name] else { return nil }
            guard let value = Double(text) else { throw RenderError("--\(name) \(text): not a number", category: .usage) }
            return value
        }
        func integer(_ name: String) throws(RenderError) -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text) else { throw RenderError("--\(name) \(text): not a whole number", category: .usage) }
            return value
        }
        var p = SessionParameters(preset: preset)
        // `minutes=fit`: as long as the preset's guided script.
        if values["minutes"] == "fit" { p.fitToGuide = true } else { p.minutes = try number("minutes") }
        p.cycles = try integer("cycles")
        p.rate = try integer("rate") ?? p.rate
        p.pattern = values["pattern"]
        p.inhale = try number("inhale")
        p.holdIn = try number("hold-in")
        p.exhale = try number("exhale")
        p.holdOut = try number("hold-out")
        p.channels = try integer("channels") ?? p.channels
        p.bits = values["bits"]
        p.quality = try number("quality") ?? p.quality
        p.format = values["format"] ?? "ogg"
        p.layers = values["layers"] ?? p.layers
        p.loudness = try number("loudness")
        p.truePeak = try number("true-peak")
        p.title = values["title"]
        p.artist = values["artist"]
        p.album = values["album"]
        p.settle = try number("settle")
        p.closing = try number("closing")
        p.ambience = values["ambience"]
        if let noVoice = values["no-voice"] {
            guard ["", "1", "true"].contains(noVoice) else {
                throw RenderError("--no-voice \(noVoice): give it alone (no-voice or no-voice=1) to leave the recorded voice out", category: .usage)
            }
            p.noVoice = true
        }
        p.bells = values["bells"]
        p.seed = try integer("seed")
        p.date = values["date"]
        p.comment = values["comment"]
        p.language = values["language"]
        if let voice = values["voice"] {
            // A request names an installed engine; it never names a program for the server to run.
            guard !voice.hasPrefix("command") else {
                throw RenderError("--voice \(voice): the service speaks with festival, espeak-ng or flite (ENGINE[:NAME]); it runs no program a request names",
                                  category: .usage)
            }
            p.voice = voice
        }
        if let fallback = values["fallback"] {
            guard fallback == "stock" else { throw RenderError("--fallback \(fallback): the one fallback is 'stock'", category: .usage) }
            p.stockFallback = true
        }
        return p
    }
}
