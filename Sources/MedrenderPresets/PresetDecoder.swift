import Foundation
import MedrenderCore
import Yams

/// Decodes a preset (YAML) into a `Session`, checking every field as it goes.
///
/// Every error names the file, the field, its line and column, the value and the allowed range.
public enum PresetDecoder {
    static let topKeys = [
        "name", "description", "minutes", "cycles", "pattern", "ramp", "segments", "rounds", "fill", "limits", "settle", "closing",
        "cues", "voice", "ambience", "bells", "master", "seed", "metadata", "credits",
        "guide", "language", "beats",
    ]

    /// The most segments a chain may have once its rounds are played out.
    public static let maximumSegments = 10_000

    /// The largest preset file read, in bytes (the library's presets are a few KiB).
    public static let maximumPresetBytes: Int64 = 1 << 20

    /// Reads and decodes the preset at `path`; its `language:` is one of `languages`.
    public static func load(path: String, languages: LanguageCatalog = .stock) throws(PresetError) -> Session {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PresetError(file: path, message: "no such preset file", category: .missingInput)
        }
        guard !isDirectory.boolValue else {
            throw PresetError(file: path, message: "is a folder; give a preset's .yaml file (medrender build renders a folder)",
                              category: .missingInput)
        }
        // A pipe or a device would block or never end; a preset is a small file.
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw PresetError(file: path, message: "is not a regular file (a pipe or a device?); give a preset's .yaml file", category: .missingInput)
        }
        if let size = (attributes?[.size] as? NSNumber)?.int64Value, size > maximumPresetBytes {
            throw PresetError(file: path, message: "is \(size) bytes; a preset is a YAML file of at most \(maximumPresetBytes / 1024) KiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PresetError(file: path, message: "cannot be read: check its permissions", category: .missingInput)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PresetError(file: path, message: "is not UTF-8 text; a preset is a YAML file")
        }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return try decode(text, file: path, defaultName: name, languages: languages)
    }

    /// Decodes preset YAML `text`; `file` names it in errors. Its `language:` is one of
    /// `languages`, and without one the session speaks their English.
    public static func decode(_ text: String, file: String, defaultName: String,
                              languages: LanguageCatalog = .stock) throws(PresetError) -> Session {
        let root = try composeRoot(text, file: file)
        let top = PresetNode(node: root, file: file, path: "")
        guard case .mapping = root else {
            throw top.error("a preset is a YAML mapping of keys such as 'pattern:' and 'minutes:', found \(top.typeName)")
        }
        let fields = try top.mapping(allowed: topKeys)

        let segments = try decodeSegments(fields, root: top)
        var session = Session(name: defaultName, segments: segments)
        if let node = fields["limits"] { session.limits = try decodeLimits(node) }
        try checkLimits(session.limits, segments: segments, fields: fields)
        if let node = fields["name"] { session.name = try node.name() }
        if let node = fields["description"] { session.description = try node.tagText() }
        try decodeLength(fields, segments: segments, into: &session)
        if let node = fields["settle"] { session.settle = try node.seconds(in: SessionLimits.seconds) }
        if let node = fields["closing"] { session.closing = try node.seconds(in: SessionLimits.seconds) }
        if let node = fields["seed"] { session.seed = UInt64(try node.integer(in: 0...Int(Int32.max), unit: "")) }
        if let node = fields["cues"] { try decodeCues(node, into: &session) }
        if let node = fields["voice"] { session.voice = try decodeVoice(node) }
        if let node = fields["ambience"] { try decodeAmbience(node, into: &session) }
        try checkSegmentBeds(segments, ambience: session.ambience, fields: fields)
        if let node = fields["bells"] { session.bells = try decodeBells(node) }
        if let node = fields["master"] { session.master = try decodeMaster(node) }
        if let node = fields["metadata"] { try decodeMetadata(node, file: file, into: &session.metadata) }
        if let node = fields["guide"] {
            session.guide = try decodeGuide(node)
            session.voice.useGuidedDefaults()
        }
        session.language = try fields["language"].map { (node) throws(PresetError) in try decodeLanguage(node, languages: languages) }
            ?? languages.language("en") ?? .english
        if let node = fields["beats"] { session.beats = try decodeBeats(node) }
        if let node = fields["credits"] { try decodeCredits(node, into: &session) }
        return session
    }

    /// Composes preset YAML `text` into its root node; an empty text, or one that is not YAML, is
    /// an error naming `file`.
    static func composeRoot(_ text: String, file: String) throws(PresetError) -> Yams.Node {
        do {
            guard let node = try PresetNode.compose(text) else {
                throw PresetError(file: file, message: "is empty; a preset needs at least a pattern, such as 'pattern: 4-4-4-4'")
            }
            return node
        } catch let error as PresetError {
            throw error
        } catch let error as YamlError {
            throw yamlError(error, file: file, text: text)
        } catch {
            throw PresetError(file: file, message: "is not valid YAML (\(error))")
        }
    }

    /// Checks every segment's pattern, and its ramp's target, against the preset's `limits`.
    static func checkLimits(_ limits: PatternLimits, segments: [PatternSegment], fields: [String: PresetNode]) throws(PresetError) {
        for (index, segment) in segments.enumerated() {
            for pattern in [segment.pattern] + (segment.ramp.map { [$0.target] } ?? []) {
                if let violation = limits.violation(of: pattern) {
                    let node = fields["segments"] ?? fields["pattern"]!
                    throw node.error(segments.count > 1 ? "segment \(index + 1): \(violation)" : violation)
                }
            }
        }
    }

    /// Decodes the session's length (`minutes`, which may say `fit`, or `cycles`, not both) and
    /// where the time after the last segment goes (`fill`).
    static func decodeLength(_ fields: [String: PresetNode], segments: [PatternSegment], into session: inout Session) throws(PresetError) {
        if fields["minutes"] != nil, fields["cycles"] != nil {
            throw fields["cycles"]!.error("give 'minutes' or 'cycles', not both")
        }
        if let node = fields["minutes"], !decodeFit(node, into: &session) {
            session.defaultLength = .duration(SessionTime(minutes: try node.number(in: 0.05...SessionLimits.mostMinutes, unit: "min"))!)
        }
        if let node = fields["cycles"] {
            session.defaultLength = .cycles(try node.integer(in: SessionLimits.cycles, unit: "cycles"))
        }
        if let node = fields["fill"] {
            guard fields["segments"] != nil else {
                throw node.error("'fill' says where the time after the last of the 'segments' goes; a single 'pattern' breathes until the closing already")
            }
            let fill = try node.choice(SpareTimeFill.self, what: "fill")
            if segments.last?.span == nil {
                throw node.error("the last segment has no 'minutes' or 'cycles', so it takes the rest of the session already: give it a length, or remove 'fill'")
            }
            session.fill = fill
        }
    }

    /// Checks that beds on segments take over from one bed before them: the session's, or the
    /// first segment's (never both).
    static func checkSegmentBeds(_ segments: [PatternSegment], ambience: [AmbienceBed], fields: [String: PresetNode]) throws(PresetError) {
        if let index = segments.indices.dropFirst().first(where: { segments[$0].ambience != nil }) {
            let list = fields["segments"]!
            if ambience.count > 1 {
                throw fields["ambience"]!.error("segment \(index + 1) has a bed of its own: give the beds either in 'ambience' (one bed, the first) or on the segments")
            }
            if ambience.isEmpty, segments[0].ambience == nil {
                throw list.error("segment \(index + 1) has a bed of its own, but nothing plays before it: give 'ambience' a first bed, or the first segment one")
            }
        }
        if segments.first?.ambience != nil, !ambience.isEmpty {
            throw fields["ambience"]!.error("the first segment has a bed of its own, which plays from the start: give it there or in 'ambience', not both")
        }
    }

    /// Decodes the `metadata` tags; a cover's path is made relative to the folder of the preset `file`.
    static func decodeMetadata(_ node: PresetNode, file: String, into metadata: inout SessionMetadata) throws(PresetError) {
        let f = try node.mapping(allowed: ["title", "artist", "album", "date", "comment", "cover"])
        if let n = f["title"] { metadata.title = try n.tagText() }
        if let n = f["artist"] { metadata.artist = try n.tagText() }
        if let n = f["album"] { metadata.album = try n.tagText() }
        if let n = f["date"] { metadata.date = try n.tagText() }
        if let n = f["comment"] { metadata.comment = try n.tagText() }
        if let n = f["cover"] {
            let cover = try n.tagText()
            guard !cover.isEmpty else { throw n.error("give the cover image's file, a .png or .jpg (beside the preset or a path)") }
            // Relative to the preset's folder, as its sounds are.
            metadata.cover = cover.hasPrefix("/") ? cover
                : URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(cover).path
        }
    }

    /// Decodes `credits`: the author and license of each sound the session uses.
    static func decodeCredits(_ node: PresetNode, into session: inout Session) throws(PresetError) {
        // Keyed by a sound as the preset names it, so a misspelt one is caught.
        let names = session.soundsUsed.map(\.name)
        for (name, entry) in try node.mapping(allowed: names) {
            let f = try entry.mapping(allowed: ["author", "license"])
            guard let author = f["author"], let license = f["license"] else {
                throw entry.error("give the sound's 'author' and 'license' (such as { author: Jane Doe, license: CC-BY-4.0 })")
            }
            session.soundCredits[name] = SoundCredit(author: try author.tagText(), license: try license.tagText())
        }
    }

    static func yamlError(_ error: YamlError, file: String, text: String) -> PresetError {
        switch error {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            // libyaml's words for two cases a person meets, in a preset's words.
            if problem.contains("another document") {
                return PresetError(file: file, line: mark.line, column: mark.column,
                                   message: "holds a second YAML document (after a '---' line); a preset is one document")
            }
            if problem.localizedCaseInsensitiveContains("nesting level") {
                return PresetError(file: file, line: mark.line, column: mark.column,
                                   message: "is nested too deeply to be a preset; a preset's lists and mappings go a few levels deep")
            }
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return PresetError(file: file, line: mark.line, column: mark.column,
                               message: "is not valid YAML: \(detail); check the indentation and punctuation there")
        case .reader(let problem, _, _, _):
            return PresetError(file: file, message: "is not readable YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams marks the mapping; the second line that sets the key is where to look.
            var line = context.mark.line, column = context.mark.column
            if let key = duplicates.first {
                let lines = text.components(separatedBy: "\n")
                let setting = lines.indices.filter { index in
                    let trimmed = lines[index].drop { $0 == " " || $0 == "-" }
                    return trimmed.hasPrefix(key + ":") || trimmed.hasPrefix(key + " :")
                }
                if setting.count >= 2 {
                    line = setting[1] + 1
                    column = lines[setting[1]].prefix { $0 == " " || $0 == "-" }.count + 1
                }
            }
            return PresetError(file: file, line: line, column: column,
                               message: "the key \(duplicates.joined(separator: ", ")) appears twice; keep one")
        default:
            return PresetError(file: file, message: "is not valid YAML (\(error))")
        }
    }

    /// The breathing: `pattern` (with an optional `ramp`), or a chain of `segments`.
    static func decodeSegments(_ fields: [String: PresetNode], root: PresetNode) throws(PresetError) -> [PatternSegment] {
        if let list = fields["segments"] {
            for key in ["pattern", "ramp"] where fields[key] != nil {
                throw fields[key]!.error("give 'segments' or '\(key)', not both: put the pattern inside each segment")
            }
            let items = try list.sequence()
            guard !items.isEmpty else { throw list.error("'segments' is empty; give at least one segment with a pattern") }
            var segments: [PatternSegment] = []
            for (index, item) in items.enumerated() {
                segments.append(try decodeSegment(item, index: index, isLast: index == items.count - 1))
            }
            if let node = fields["rounds"] {
                let rounds = try node.integer(in: 1...1000, unit: "rounds")
                if rounds > 1, let index = segments.firstIndex(where: { $0.span == nil }) {
                    throw items[index].error("segment \(index + 1) needs 'minutes' or 'cycles': with 'rounds', every segment has a length, so each round ends")
                }
                guard rounds * segments.count <= maximumSegments else {
                    throw node.error("\(rounds) rounds of \(segments.count) segments are \(rounds * segments.count) segments; at most \(maximumSegments)")
                }
                // The chain played `rounds` times over; named segments say their round in chapters.
                let chain = segments
                segments = (1...rounds).flatMap { round in
                    chain.map { segment in
                        var segment = segment
                        if rounds > 1, let name = segment.name { segment.name = "\(name) (round \(round))" }
                        return segment
                    }
                }
            }
            return segments
        }
        if let node = fields["rounds"] {
            throw node.error("'rounds' repeats a chain of 'segments'; put the pattern in a list of segments, each with 'minutes' or 'cycles'")
        }
        guard let patternNode = fields["pattern"] else {
            throw PresetError(file: root.file, line: root.line, column: root.column,
                              message: "missing 'pattern': add one such as 'pattern: 4-4-4-4' (inhale-hold-exhale-hold, seconds), or a list of 'segments'")
        }
        var segment = PatternSegment(pattern: try decodePattern(patternNode))
        if let n = fields["ramp"] { segment.ramp = try decodeRamp(n) }
        return [segment]
    }

    /// Decodes segment `index` (0-based) of a chain: its pattern, name, ramp, cues, voice, bed and
    /// length; only the last one (`isLast`) may leave out its length.
    static func decodeSegment(_ item: PresetNode, index: Int, isLast: Bool) throws(PresetError) -> PatternSegment {
        let f = try item.mapping(allowed: ["name", "pattern", "ramp", "minutes", "cycles", "cues", "voice", "ambience"])
        guard let patternNode = f["pattern"] else {
            throw item.error("missing 'pattern' in segment \(index + 1): add one such as 'pattern: 4-0-6-0'")
        }
        var segment = PatternSegment(pattern: try decodePattern(patternNode))
        if let n = f["name"] { segment.name = try n.name() }
        if let n = f["ramp"] { segment.ramp = try decodeRamp(n) }
        if let n = f["cues"] { segment.cues = try decodeSegmentCues(n) }
        if let n = f["voice"] { segment.voice = try n.sound() }
        if let n = f["ambience"] { segment.ambience = try decodeBed(n) }
        if let n = f["ambience"], segment.ambience?.from != nil {
            throw n.error("a segment's bed takes over as the segment starts; 'from' and 'from-minute' are for the beds in 'ambience'")
        }
        segment.span = try decodeSpan(f, in: item)
        // A segment shorter than one of its cycles would get no breath at all.
        if case .duration(let length)? = segment.span, length < segment.pattern.cycleLength, let minutes = f["minutes"] {
            let least = (Double(segment.pattern.cycleLength.milliseconds) / 600).rounded(.up) / 100
            throw minutes.error("\(length) s is shorter than one \(segment.pattern.cycleLength) s cycle of segment \(index + 1); "
                + "give at least \(least) min or use 'cycles'")
        }
        if segment.span == nil, !isLast {
            throw item.error("segment \(index + 1) needs 'minutes' or 'cycles'; only the last segment may take the rest of the session")
        }
        return segment
    }

    /// `minutes: M` or `cycles: N` of a segment or a ramp; nil when neither is given.
    static func decodeSpan(_ f: [String: PresetNode], in node: PresetNode) throws(PresetError) -> SegmentSpan? {
        if f["minutes"] != nil, f["cycles"] != nil { throw f["cycles"]!.error("give 'minutes' or 'cycles', not both") }
        if let n = f["minutes"] { return .duration(SessionTime(minutes: try n.number(in: 0.01...SessionLimits.mostMinutes, unit: "min"))!) }
        if let n = f["cycles"] { return .cycles(try n.integer(in: SessionLimits.cycles, unit: "cycles")) }
        return nil
    }

    static func decodeRamp(_ node: PresetNode) throws(PresetError) -> PatternRamp {
        let f = try node.mapping(allowed: ["to", "minutes", "cycles", "curve"])
        guard let to = f["to"] else { throw node.error("missing 'to': the pattern the ramp eases to, such as 'to: 4-0-8-0'") }
        guard let span = try decodeSpan(f, in: node) else {
            throw node.error("missing 'minutes' or 'cycles': how long the ramp takes")
        }
        var ramp = PatternRamp(target: try decodePattern(to), span: span)
        if let c = f["curve"] { ramp.curve = try c.choice(FadeCurve.self, what: "ramp curve") }
        return ramp
    }

    /// A pattern: `4-7-8-0`, a mapping of phases, or `{ ratio: 1:4:2:0, unit: 2 }`.
    static func decodePattern(_ node: PresetNode) throws(PresetError) -> BreathPattern {
        let pattern: BreathPattern
        if case .scalar = node.node {
            let text = try node.string()
            do {
                pattern = try PatternNotation.parse(text)
            } catch {
                throw node.error(error.description)
            }
        } else {
            let fields = try node.mapping(allowed: ["inhale", "hold-in", "top-up", "exhale", "hold-out", "ratio", "unit"])
            if let ratio = fields["ratio"] {
                for key in ["inhale", "hold-in", "top-up", "exhale", "hold-out"] where fields[key] != nil {
                    throw fields[key]!.error("give 'ratio' with 'unit', or the phases, not both")
                }
                guard let unitNode = fields["unit"] else {
                    throw node.error("missing 'unit': the seconds one part of the ratio lasts, such as 'unit: 2'")
                }
                let unit = try unitNode.number(in: 0.1...60, unit: "s")
                let text = try ratio.string()
                do {
                    pattern = try PatternNotation.parse(ratio: text, unitSeconds: unit)
                } catch {
                    throw ratio.error(error.description)
                }
            } else {
                if fields["unit"] != nil { throw fields["unit"]!.error("'unit' goes with 'ratio', such as 'ratio: 1:4:2:0'") }
                var p = BreathPattern(inhale: .zero, exhale: .zero)
                for kind in PhaseKind.allCases {
                    if let value = fields[kind.rawValue] { p[kind] = try value.seconds(in: PatternNotation.phaseRange) }
                }
                pattern = p
            }
        }
        if let violation = GlobalLimits.violation(of: pattern) { throw node.error(violation) }
        return pattern
    }

    static func decodeLimits(_ node: PresetNode) throws(PresetError) -> PatternLimits {
        let f = try node.mapping(allowed: ["inhale", "hold-in", "top-up", "exhale", "hold-out", "exhale-over-inhale"])
        var limits = PatternLimits()
        for kind in PhaseKind.allCases {
            guard let n = f[kind.rawValue] else { continue }
            let items = try n.sequence()
            guard items.count == 2 else { throw n.error("a limit is [least, most] in seconds, such as [2, 12]") }
            let low = try items[0].seconds(in: PatternNotation.phaseRange)
            let high = try items[1].seconds(in: PatternNotation.phaseRange)
            guard low <= high else { throw n.error("the least (\(low) s) is more than the most (\(high) s)") }
            limits.ranges[kind] = low...high
        }
        if let n = f["exhale-over-inhale"] { limits.exhaleOverInhale = try n.seconds(in: 0...60) }
        return limits
    }

    static func decodeCue(_ node: PresetNode, kind: PhaseKind) throws(PresetError) -> CueSound? {
        if case .scalar(let s) = node.node, ["none", "off", "false"].contains(s.string) { return nil }
        var cue = CueSound.standard(for: kind)
        let fields = try node.mapping(allowed: ["tone", "sound", "pitch", "gain", "length", "pan"])
        if fields["tone"] != nil, fields["sound"] != nil { throw fields["sound"]!.error("give 'tone' or 'sound', not both") }
        if let t = fields["tone"] { cue.source = .synth(try t.choice(CueTimbre.self, what: "tone")) }
        if let s = fields["sound"] { cue.source = .sound(try s.sound()) }
        if let p = fields["pitch"] { cue.pitchHertz = try p.number(in: 50...4000, unit: "Hz") }
        if let g = fields["gain"] { cue.gainDecibels = try g.number(in: -60...0, unit: "dB") }
        if let l = fields["length"] { cue.length = try l.seconds(in: 0.01...10) }
        if let p = fields["pan"] { cue.pan = try p.number(in: -1...1, unit: "") }
        return cue
    }

    static func decodePhaseKinds(_ node: PresetNode) throws(PresetError) -> Set<PhaseKind> {
        var kinds = Set<PhaseKind>()
        for item in try node.sequence() {
            let name = try item.string()
            if name == "hold" {
                kinds.formUnion([.holdIn, .holdOut])
            } else {
                kinds.insert(try item.choice(PhaseKind.self, what: "phase"))
            }
        }
        return kinds
    }

    static func decodeMetronome(_ node: PresetNode) throws(PresetError) -> Metronome {
        let f = try node.mapping(allowed: ["phases", "gain", "pitch"])
        var metronome = Metronome()
        if let n = f["phases"] { metronome.phases = try decodePhaseKinds(n) }
        if let n = f["gain"] { metronome.gainDecibels = try n.number(in: -60...0, unit: "dB") }
        if let n = f["pitch"] { metronome.pitchHertz = try n.number(in: 50...4000, unit: "Hz") }
        return metronome
    }

    static func decodeSwell(_ node: PresetNode) throws(PresetError) -> BreathSwell {
        let f = try node.mapping(allowed: ["kind", "pitch", "gain", "curve"])
        var swell = BreathSwell()
        if let n = f["kind"] { swell.kind = try n.choice(BreathSwell.Kind.self, what: "swell kind") }
        if let n = f["pitch"] { swell.pitchHertz = try n.number(in: 50...2000, unit: "Hz") }
        if let n = f["gain"] { swell.gainDecibels = try n.number(in: -60...0, unit: "dB") }
        if let n = f["curve"] { swell.curve = try n.choice(FadeCurve.self, what: "swell curve") }
        return swell
    }

    static func decodeCues(_ node: PresetNode, into session: inout Session) throws(PresetError) {
        session.cues = try decodeCues(node)
        let fields = try node.mapping(allowed: ["inhale", "hold", "hold-in", "top-up", "exhale", "hold-out", "metronome", "swell"])
        if let n = fields["metronome"] { session.metronome = try decodeMetronome(n) }
        if let n = fields["swell"] { session.swell = try decodeSwell(n) }
    }

    /// A segment's cues: the kinds it lists, each a cue or `none`; the others keep the session's.
    static func decodeSegmentCues(_ node: PresetNode) throws(PresetError) -> [PhaseKind: CueSound?] {
        let fields = try node.mapping(allowed: ["inhale", "hold", "hold-in", "top-up", "exhale", "hold-out"])
        var cues: [PhaseKind: CueSound?] = [:]
        if let hold = fields["hold"] {
            let cue = try decodeCue(hold, kind: .holdIn)
            cues[.holdIn] = .some(cue)
            cues[.holdOut] = .some(cue)
        }
        for kind in PhaseKind.allCases {
            if let value = fields[kind.rawValue] { cues[kind] = .some(try decodeCue(value, kind: kind)) }
        }
        return cues
    }

    static func decodeCues(_ node: PresetNode) throws(PresetError) -> CueSet {
        let fields = try node.mapping(allowed: ["inhale", "hold", "hold-in", "top-up", "exhale", "hold-out", "metronome", "swell"])
        var cues = CueSet()
        if let hold = fields["hold"] {
            let cue = try decodeCue(hold, kind: .holdIn)
            cues[.holdIn] = cue
            cues[.holdOut] = cue
        }
        for kind in PhaseKind.allCases {
            if let value = fields[kind.rawValue] { cues[kind] = try decodeCue(value, kind: kind) }
        }
        return cues
    }

    static func decodeVoice(_ node: PresetNode) throws(PresetError) -> VoiceSettings {
        let fields = try node.mapping(allowed: [
            "intro", "intro-at", "outro", "outro-after", "level", "prompts", "prompt-cycles", "clips", "track",
            "track-at", "duck", "duck-attack", "duck-release", "duck-curve", "duck-hold", "cue-under-prompt", "lead-in",
        ])
        var voice = VoiceSettings()
        if let n = fields["intro"] { voice.intro = try decodeRecording(n, into: &voice) }
        if let n = fields["intro-at"] { voice.introAt = try n.seconds(in: SessionLimits.seconds) }
        if let n = fields["outro"] { voice.outro = try decodeRecording(n, into: &voice) }
        if let n = fields["outro-after"] { voice.outroAfter = try n.seconds(in: SessionLimits.seconds) }
        if let n = fields["level"] { voice.levelLUFS = try n.number(in: -70...(-10), unit: "LUFS") }
        if let n = fields["prompts"] { try decodePrompts(n, into: &voice) }
        if let n = fields["prompt-cycles"] { voice.promptCycles = try n.integer(in: 0...1000, unit: "cycles") }
        if let n = fields["clips"] { voice.clips += try decodeVoiceClips(n, into: &voice) }
        if let n = fields["lead-in"] { try decodeLeadIn(n, into: &voice) }
        if let n = fields["track"] { voice.track = try decodeRecording(n, into: &voice) }
        if let n = fields["track-at"] { voice.trackAt = try n.seconds(in: 0...86400) }
        if let n = fields["duck"] {
            voice.duckDecibels = try n.number(in: -40...0, unit: "dB")
            voice.duckGiven = true
        }
        if let n = fields["duck-attack"] {
            voice.duckAttack = try n.seconds(in: 0...10)
            voice.duckAttackGiven = true
        }
        if let n = fields["duck-release"] {
            voice.duckRelease = try n.seconds(in: 0...10)
            voice.duckReleaseGiven = true
        }
        if let n = fields["duck-curve"] { voice.duckCurve = try n.choice(FadeCurve.self, what: "duck curve") }
        if let n = fields["duck-hold"] { voice.duckHold = try n.seconds(in: 0...30) }
        if let n = fields["cue-under-prompt"] {
            voice.cueUnderPromptDecibels = try n.number(in: -40...0, unit: "dB")
            voice.cueUnderPromptGiven = true
        }
        return voice
    }

    /// Decodes the voice's `prompts`: `spoken` (the script's voice speaks them, in the session's
    /// language) or a clip per phase (`hold` for both holds).
    static func decodePrompts(_ n: PresetNode, into voice: inout VoiceSettings) throws(PresetError) {
        if case .scalar = n.node {
            // `prompts: spoken`: the script's voice speaks them, in the session's language.
            guard (try n.string()) == "spoken" else {
                throw n.error("give 'spoken' (the voice speaks them in the preset's language) or a clip per phase, such as { inhale: voice-breathe-in }")
            }
            voice.spokenPrompts = true
        } else {
            let f = try n.mapping(allowed: ["inhale", "hold", "hold-in", "top-up", "exhale", "hold-out"])
            if let hold = f["hold"] {
                let ref = try decodeRecording(hold, into: &voice)
                voice.prompts[.holdIn] = ref
                voice.prompts[.holdOut] = ref
            }
            for kind in PhaseKind.allCases {
                if let value = f[kind.rawValue] { voice.prompts[kind] = try decodeRecording(value, into: &voice) }
            }
        }
    }

    /// A recording of the voice: its sound (`intro: welcome`), or its sound and the words it says
    /// (`intro: { sound: welcome, text: "Welcome. Sit comfortably." }`), which the captions, the cue
    /// sheet and the preview page show for it (else its name, without folder or extension).
    static func decodeRecording(_ n: PresetNode, into voice: inout VoiceSettings) throws(PresetError) -> SoundRef {
        guard case .mapping = n.node else { return try n.sound() }
        let f = try n.mapping(allowed: ["sound", "text"])
        guard let sound = f["sound"] else {
            throw n.error("a recording with its words needs 'sound', such as { sound: welcome, text: \"Welcome.\" }")
        }
        let ref = try sound.sound()
        if let text = f["text"] { voice.spokenTexts[ref] = try decodeRecordingText(text) }
        return ref
    }

    /// The words a recording says: one line of text, as a caption shows it.
    static func decodeRecordingText(_ n: PresetNode) throws(PresetError) -> String {
        let text = try n.string().trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= 1000 else { throw n.error("give the words the recording says, 1 to 1000 characters") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
            throw n.error("the words contain a control character; give plain text")
        }
        return text.replacingOccurrences(of: "\n", with: " ")
    }

    /// Decodes the voice's `clips`: each a sound and when it starts, in seconds from the start, and
    /// the words it says (`text`) when given.
    static func decodeVoiceClips(_ n: PresetNode, into voice: inout VoiceSettings) throws(PresetError) -> [TimedClip] {
        var clips: [TimedClip] = []
        for item in try n.sequence() {
            let f = try item.mapping(allowed: ["sound", "at", "text"])
            guard let sound = f["sound"], let at = f["at"] else {
                throw item.error("a voice clip needs 'sound' and 'at' (seconds from the start), such as { sound: voice-hold, at: 120 }")
            }
            let ref = try sound.sound()
            if let text = f["text"] { voice.spokenTexts[ref] = try decodeRecordingText(text) }
            clips.append(TimedClip(sound: ref, at: try at.seconds(in: 0...86400)))
        }
        return clips
    }

    /// Decodes the voice's `lead-in`: `spoken` (three, two, one, in the session's language) or 1 to
    /// 10 clips, the count in order.
    static func decodeLeadIn(_ n: PresetNode, into voice: inout VoiceSettings) throws(PresetError) {
        if case .scalar = n.node {
            // `lead-in: spoken`: three, two, one, in the session's language.
            guard (try n.string()) == "spoken" else {
                throw n.error("give 'spoken' (three, two, one in the preset's language) or 1 to 10 clips, such as [three, two, one]")
            }
            voice.spokenLeadIn = 3
        } else {
            let items = try n.sequence()
            guard (1...10).contains(items.count) else {
                throw n.error("a lead-in is 1 to 10 clips, the count in order, such as [three, two, one]")
            }
            voice.leadIn = try items.map { (item) throws(PresetError) in try item.sound() }
        }
    }

    static func decodeBed(_ node: PresetNode) throws(PresetError) -> AmbienceBed {
        if case .scalar = node.node { return AmbienceBed(sound: try node.sound()) }
        let fields = try node.mapping(allowed: ["sound", "level", "seam", "from", "from-minute", "generator"])
        var bed: AmbienceBed
        if let generator = fields["generator"] {
            bed = try decodeGeneratedBed(generator, fields: fields)
        } else {
            guard let sound = fields["sound"] else { throw node.error("missing 'sound': name a bed such as 'sound: rain' (or 'generator: pink')") }
            bed = AmbienceBed(sound: try sound.sound())
        }
        if fields["from"] != nil, fields["from-minute"] != nil {
            throw fields["from-minute"]!.error("give 'from' (a fraction of the session) or 'from-minute', not both")
        }
        if let n = fields["from"] { bed.from = .fraction(try n.number(in: 0...1, unit: "of the session")) }
        if let n = fields["from-minute"] { bed.from = .time(SessionTime(minutes: try n.number(in: 0...1440, unit: "min"))!) }
        if let n = fields["level"] { bed.levelLUFS = try n.number(in: -70...(-10), unit: "LUFS") }
        if let n = fields["seam"] { bed.seam = try n.seconds(in: 0...30) }
        return bed
    }

    /// Beds in order: the first plays from the start, so a start point is for the ones after it.
    static func decodeBeds(_ node: PresetNode) throws(PresetError) -> [AmbienceBed] {
        let items = try node.sequence()
        let beds = try items.map { (n) throws(PresetError) in try decodeBed(n) }
        if let first = beds.first, first.from != nil {
            throw items[0].error("the first bed plays from the start; 'from' and 'from-minute' are for the beds after it")
        }
        return beds
    }

    static func decodeAmbience(_ node: PresetNode, into session: inout Session) throws(PresetError) {
        if case .sequence = node.node {
            session.ambience = try decodeBeds(node)
            return
        }
        if case .scalar = node.node {
            session.ambience = [try decodeBed(node)]
            return
        }
        let fields = try node.mapping(allowed: ["beds", "fade-in", "fade-out", "crossfade", "curve"])
        if let n = fields["curve"] { session.ambienceCurve = try n.choice(FadeCurve.self, what: "ambience curve") }
        if let beds = fields["beds"] {
            session.ambience = try decodeBeds(beds)
        }
        if let n = fields["crossfade"] { session.ambienceCrossfade = try n.seconds(in: 0...600) }
        if let n = fields["fade-in"] { session.ambienceFadeIn = try n.seconds(in: 0...600) }
        if let n = fields["fade-out"] { session.ambienceFadeOut = try n.seconds(in: 0...600) }
    }

    /// A start or end bell: a sound (`start: bell`), or a sound struck more than once
    /// (`start: { sound: gong, strikes: 2, gap: 1.2 }`).
    static func decodeStruckBell(_ node: PresetNode) throws(PresetError) -> (SoundRef, BellStrikes) {
        if case .scalar = node.node { return (try node.sound(), BellStrikes()) }
        let fields = try node.mapping(allowed: ["sound", "strikes", "gap"])
        guard let sound = fields["sound"] else { throw node.error("missing 'sound': name the bell, such as { sound: bell, strikes: 2 }") }
        var strikes = BellStrikes()
        if let n = fields["strikes"] { strikes.count = try n.integer(in: BellStrikes.counts, unit: "strikes") }
        if let n = fields["gap"] {
            strikes.gap = try n.seconds(in: BellStrikes.gaps.lowerBound.seconds...BellStrikes.gaps.upperBound.seconds)
        }
        return (try sound.sound(), strikes)
    }

    static func decodeBells(_ node: PresetNode) throws(PresetError) -> BellSettings {
        let fields = try node.mapping(allowed: ["start", "end", "gain", "interval", "every", "at", "countdown", "lead-in"])
        var bells = BellSettings()
        if let n = fields["interval"] { bells.interval = try n.sound() }
        // 'every' counts minutes of breathing, from the first breath; 'at' counts from the file's start
        // (the settle included). The errors say which, as the two are easily taken for each other.
        if let n = fields["every"] {
            bells.every = SessionTime(minutes: try n.number(in: 0.1...1440, unit: "min of breathing, counted from the first breath"))
        }
        if let n = fields["at"] {
            bells.at = try n.sequence().map { (item) throws(PresetError) in
                SessionTime(minutes: try item.number(in: 0...1440, unit: "min from the start of the file"))!
            }
        }
        if let n = fields["countdown"] { bells.countdownSeconds = try n.integer(in: 0...60, unit: "s") }
        if let n = fields["lead-in"] { bells.leadInSeconds = try n.integer(in: 0...10, unit: "s") }
        if let n = fields["start"] { (bells.start, bells.startStrikes) = try decodeStruckBell(n) }
        if let n = fields["end"] { (bells.end, bells.endStrikes) = try decodeStruckBell(n) }
        if let n = fields["gain"] { bells.gainDecibels = try n.number(in: -60...12, unit: "dB") }
        // Timed bells ring 'interval' (or the start bell's sound): with neither, they would be silent.
        if bells.interval == nil, bells.start == nil, let timed = fields["every"] ?? fields["at"] {
            throw timed.error("the timed bells have no sound; give 'interval' (such as interval: bell) or 'start'")
        }
        return bells
    }

    static func decodeMaster(_ node: PresetNode) throws(PresetError) -> MasterSettings {
        let fields = try node.mapping(allowed: ["loudness", "true-peak", "fade-in", "fade-out", "fade-curve"])
        var master = MasterSettings()
        if let n = fields["loudness"] { master.loudnessLUFS = try n.number(in: SessionLimits.loudness, unit: "LUFS") }
        if let n = fields["true-peak"] { master.truePeakDBTP = try n.number(in: SessionLimits.truePeak, unit: "dBTP") }
        if let n = fields["fade-in"] { master.fadeIn = try n.seconds(in: 0...600) }
        if let n = fields["fade-out"] { master.fadeOut = try n.seconds(in: 0...600) }
        if let n = fields["fade-curve"] { master.fadeCurve = try n.choice(FadeCurve.self, what: "fade curve") }
        return master
    }
}
