import Foundation
import MedrenderCore

extension PresetDecoder {
    /// The most characters a spoken line may have.
    public static let maximumSpokenCharacters = 2000

    /// `language: TAG`, a BCP 47 tag one of `languages` has words for (`de`, `pt-BR`; `pt` picks
    /// `pt-BR` and says so in the language's note).
    static func decodeLanguage(_ node: PresetNode, languages: LanguageCatalog) throws(PresetError) -> Language {
        let text = try node.string()
        if let language = languages.language(text) { return language }
        throw node.error("unknown language '\(text)'; " + languages.available(adding: text))
    }

    /// `minutes: fit`: the session is as long as its guided script needs. Returns whether it was.
    static func decodeFit(_ node: PresetNode, into session: inout Session) -> Bool {
        guard (try? node.string()) == "fit" else { return false }
        session.fitsGuide = true
        return true
    }

    /// `guide: { voice: { engine, name } | ENGINE[:NAME] | [choices…], pace: WPM, recording: TAKE, lines: [ … ] }`.
    static func decodeGuide(_ node: PresetNode) throws(PresetError) -> GuideScript {
        let fields = try node.mapping(allowed: ["voice", "pace", "recording", "lines"])
        var script = GuideScript(lines: [])
        script.pace = try fields["pace"].map(pace)
        script.recording = try fields["recording"].map(decodeRecording)
        if let v = fields["voice"] {
            let choices = try decodeGuideVoices(v)
            script.voice = choices.first
            script.fallbacks = Array(choices.dropFirst())
            script.voiceLocation = ScriptLocation(file: v.file, line: v.line ?? 0, column: v.column ?? 0)
        }
        guard let linesNode = fields["lines"] else {
            throw node.error("a guide needs 'lines:', a list such as [{ say: \"Let the shoulders soften.\" }]")
        }
        let items = try linesNode.sequence()
        guard !items.isEmpty else { throw linesNode.error("is empty; give at least one line such as { say: \"Welcome.\" }") }
        for item in items { script.lines.append(try decodeGuideLine(item)) }
        return script
    }

    /// One voice, or a list of choices tried in order (`[piper:en_US-joe-medium, festival]`).
    static func decodeGuideVoices(_ node: PresetNode) throws(PresetError) -> [GuideVoice] {
        guard case .sequence = node.node else { return [try decodeGuideVoice(node)] }
        let items = try node.sequence()
        guard !items.isEmpty else {
            throw node.error("is an empty list; give one voice or several to try in order, such as [piper:en_US-joe-medium, festival]")
        }
        var voices: [GuideVoice] = []
        for item in items { voices.append(try decodeGuideVoice(item)) }
        return voices
    }

    /// `voice: { engine: festival|espeak-ng|flite|piper|command, name: VOICE }`, or `voice: ENGINE[:NAME]`.
    /// A Piper model given by path is found beside the preset.
    static func decodeGuideVoice(_ node: PresetNode) throws(PresetError) -> GuideVoice {
        if case .scalar = node.node {
            let text = try node.string()
            return besidePreset(try guideVoice(text, node: node), file: node.file)
        }
        let f = try node.mapping(allowed: ["engine", "name"])
        guard let e = f["engine"] else { throw node.error("give the voice's 'engine': festival, espeak-ng, flite, piper or command") }
        var voice = GuideVoice(engine: try e.choice(GuideVoice.Engine.self, what: "speech engine"))
        if let n = f["name"] { voice.name = try n.name() }
        if voice.engine == .command, voice.name == nil {
            throw node.error("the 'command' engine needs 'name': the program to run with the text and an output path")
        }
        return besidePreset(voice, file: node.file)
    }

    /// The voice with a Piper model's relative path made relative to the preset's folder, as a
    /// sound's is.
    static func besidePreset(_ voice: GuideVoice, file: String) -> GuideVoice {
        guard voice.engine == .piper, let name = voice.name, GuideVoice.isModelPath(name), !name.hasPrefix("/"), !file.isEmpty else {
            return voice
        }
        let dir = URL(fileURLWithPath: file).deletingLastPathComponent().path
        return GuideVoice(engine: .piper, name: dir + "/" + name)
    }

    /// `ENGINE[:NAME]`, as `--voice` and a short `voice:` give it.
    public static func guideVoice(_ text: String) throws(PresetError) -> GuideVoice {
        try guideVoice(text, node: nil)
    }

    private static func guideVoice(_ text: String, node: PresetNode?) throws(PresetError) -> GuideVoice {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        let engines = GuideVoice.Engine.allCases.map(\.rawValue)
        func fail(_ message: String) -> PresetError {
            node?.error(message) ?? PresetError(file: "", field: "{voice}", message: message, category: .usage)
        }
        guard let first = parts.first, let engine = GuideVoice.Engine(rawValue: first) else {
            var message = "unknown speech engine '\(parts.first ?? "")'"
            if let guess = didYouMean(parts.first ?? "", among: engines) { message += " (did you mean '\(guess)'?)" }
            throw fail(message + "; choose one of: \(engines.joined(separator: ", ")), as ENGINE or ENGINE:VOICE")
        }
        let name = parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil
        if engine == .command, name == nil { throw fail("the 'command' engine needs a program: command:PATH") }
        return GuideVoice(engine: engine, name: name)
    }

    static func decodeGuideLine(_ item: PresetNode) throws(PresetError) -> GuideLine {
        let f = try item.mapping(allowed: ["say", "clip", "text", "at", "pause", "rest", "during", "on", "pace"])
        let location = ScriptLocation(file: item.file, line: item.line ?? 0, column: item.column ?? 0)
        let content: GuideLine.Content
        switch (f["say"], f["clip"]) {
        case (let say?, nil):
            if let text = f["text"] { throw text.error("'text' goes with a 'clip' (what it says); a 'say' line is its own text") }
            let text = try spokenText(say)
            do throws(SpokenPhrases.Problem) {
                _ = try SpokenPhrases(text)
            } catch {
                throw say.error(error.message)
            }
            content = .say(text)
        case (nil, let clip?):
            if let n = f["pace"] { throw n.error("'pace' is how fast a 'say' line is spoken; a clip is played as recorded") }
            content = .clip(try clip.sound(), text: try f["text"].map { n throws(PresetError) in try spokenText(n) })
        case (_?, _?):
            throw f["clip"]!.error("give 'say' (text to speak) or 'clip' (a recording), not both")
        case (nil, nil):
            throw item.error("a line needs 'say: \"text to speak\"' or 'clip: NAME|PATH'")
        }
        var line = GuideLine(content: content, location: location)
        line.pace = try f["pace"].map(pace)
        if let at = f["at"], let on = f["on"] { _ = at; throw on.error("give 'at' or 'on', not both") }
        if let n = f["during"] {
            if let other = f["at"] ?? f["on"] { throw other.error("a line with 'during' flows from its part's start; drop 'at'/'on' or 'during'") }
            line.during = try n.choice(SessionPart.self, what: "part")
        }
        if let pause = f["pause"], let other = f["at"] ?? f["on"] {
            _ = pause
            throw other.error("a line placed by 'at' or 'on' takes no 'pause'; drop one of them")
        }
        if let n = f["at"] { line.start = .at(try n.seconds(in: 0...86400)) }
        if let n = f["on"] {
            let o = try n.mapping(allowed: ["cycle", "phase"])
            guard let c = o["cycle"], let p = o["phase"] else {
                throw n.error("'on' needs 'cycle' and 'phase', such as { cycle: 3, phase: exhale }")
            }
            line.start = .on(cycle: try c.integer(in: SessionLimits.cycles, unit: "cycles"), phase: try p.choice(PhaseKind.self, what: "phase"))
        }
        if let n = f["pause"] {
            switch try silence(n) {
            case .fixed(let pause): line.start = .after(pause)
            case .elastic(let minimum, let weight): line.start = .elastic(minimum: minimum, weight: weight)
            }
        }
        if let n = f["rest"] { line.rest = try silence(n) }
        return line
    }

    /// `recording: NAME|PATH`, or `{ sound, silence: DB, gap: S, split: [S, …] }`: a take of the
    /// whole script, its phrases found under its own level by `silence` (−80…−6 dB, default −30)
    /// with silences of at least `gap` (0.05–10 s, default 1) between them, or cut at `split`.
    static func decodeRecording(_ node: PresetNode) throws(PresetError) -> GuideRecording {
        let location = ScriptLocation(file: node.file, line: node.line ?? 0, column: node.column ?? 0)
        guard case .mapping = node.node else { return GuideRecording(sound: try node.sound(), location: location) }
        let f = try node.mapping(allowed: ["sound", "silence", "gap", "split"])
        guard let sound = f["sound"] else { throw node.error("a recording needs 'sound': the take (a name from Sounds/ or a path)") }
        var recording = GuideRecording(sound: try sound.sound(), location: location)
        if let n = f["silence"] { recording.settings.silence = try n.number(in: TakePhrases.silenceRange, unit: "dB") }
        if let n = f["gap"] { recording.settings.gap = try n.seconds(in: TakePhrases.gapRange) }
        if let n = f["split"] {
            var cuts: [SessionTime] = []
            for item in try n.sequence() {
                let cut = try item.seconds(in: 0...86400)
                if let last = cuts.last, cut <= last { throw item.error("cut times go up: \(cut) s comes after \(last) s") }
                cuts.append(cut)
            }
            guard !cuts.isEmpty else { throw n.error("is empty; give the times between the lines, such as [4.5, 12.2]") }
            recording.split = cuts
        }
        return recording
    }

    /// A script's or a line's `pace:`, in words a minute.
    static func pace(_ node: PresetNode) throws(PresetError) -> Int {
        try node.integer(in: SessionLimits.pace, unit: "words a minute")
    }

    /// A line's `pause:` (the silence before it) or `rest:` (after it): seconds, or elastic
    /// `{ min, weight }` (at least `min` s, 0–3600, default 0, plus a share of the spare time by
    /// `weight`, 0.001–1000, default 1).
    static func silence(_ node: PresetNode) throws(PresetError) -> GuideLine.Rest {
        guard case .mapping = node.node else { return .fixed(try node.seconds(in: SessionLimits.seconds)) }
        let p = try node.mapping(allowed: ["min", "weight"])
        let minimum = try p["min"]?.seconds(in: SessionLimits.seconds) ?? .zero
        let weight = try p["weight"]?.number(in: 0.001...1000, unit: "") ?? 1
        return .elastic(minimum: minimum, weight: weight)
    }

    /// Text to speak or to caption: not empty, at most `maximumSpokenCharacters`, on one line
    /// (a block scalar's line breaks become spaces).
    static func spokenText(_ node: PresetNode) throws(PresetError) -> String {
        let raw = try node.string()
        let text = raw.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        guard !text.isEmpty else { throw node.error("the text is empty; write what the voice says") }
        guard text.count <= maximumSpokenCharacters else {
            throw node.error("is \(text.count) characters; a line takes at most \(maximumSpokenCharacters): split it into several lines")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw node.error("contains a control character; write plain text")
        }
        return text
    }
}
