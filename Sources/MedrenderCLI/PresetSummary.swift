import Foundation
import MedrenderCore
import MedrenderPresets

/// One preset as `medrender presets NAME` shows it: what plays, in the order it plays.
struct PresetSummary: Codable {
    var name: String
    var file: String
    var description: String
    var minutes: Double?
    var cycles: Int?
    var settleSeconds: Double
    var closingSeconds: Double
    /// Each segment: `4-0-4-0 → 4-0-8-0 over 6 cycles, then 4-0-8-0 for 10 min`.
    var breathing: [String]
    var fill: String?
    var cues: [String]
    var voice: [String]
    var ambience: [String]
    var bells: [String]
    var master: String

    init(session: Session, file: String) {
        let listing = PresetListing(session: session, file: file)
        name = listing.name
        self.file = file
        description = session.description
        minutes = listing.minutes
        cycles = listing.cycles
        settleSeconds = session.settle.seconds
        closingSeconds = session.closing.seconds
        breathing = Self.breathingLines(session.segments)
        fill = session.fill?.rawValue
        // Only the cues of phases the breathing plays (a hold of 0 s plays none).
        let played = Set(session.segments.flatMap { segment in
            (segment.pattern.phases + (segment.ramp?.target.phases ?? [])).map(\.kind)
        })
        cues = PhaseKind.allCases.compactMap { kind in
            guard played.contains(kind), let cue = session.cues[kind] else { return nil }
            let source: String
            switch cue.source {
            case .synth(let timbre): source = "\(timbre.rawValue) \(Self.number(cue.pitchHertz)) Hz"
            case .sound(let ref): source = "\(ref)"
            }
            return "\(kind.rawValue): \(source), \(Self.number(cue.gainDecibels)) dB"
        }
        voice = Self.voiceLines(session.voice)
        ambience = session.ambience.map { bed in
            var text = "\(bed.sound) at \(Self.number(bed.levelLUFS)) LUFS"
            switch bed.from {
            case .fraction(let f)?: text += ", from \(Self.number(f * 100)) % of the session"
            case .time(let t)?: text += ", from minute \(Self.number(t.seconds / 60))"
            case nil: break
            }
            return text
        }
        bells = Self.bellLines(session.bells)
        master = "\(Self.number(session.master.loudnessLUFS)) LUFS, true peak \(Self.number(session.master.truePeakDBTP)) dBTP"
    }

    /// Each segment's line: its name, its pattern (and ramp), and how long it lasts.
    static func breathingLines(_ segments: [PatternSegment]) -> [String] {
        segments.enumerated().map { index, segment in
            var text = segment.name.map { "\($0): " } ?? (segments.count > 1 ? "segment \(index + 1): " : "")
            if let ramp = segment.ramp {
                text += "\(segment.pattern) → \(ramp.target) over \(Self.span(ramp.span))"
                if ramp.curve != .linear { text += " (\(ramp.curve.rawValue))" }
                text += segment.span.map { ", for \(Self.span($0)) in all" } ?? ", then held"
            } else {
                text += "\(segment.pattern)" + (segment.span.map { " for \(Self.span($0))" } ?? "")
            }
            if segment.span == nil { text += " until the closing" }
            return text
        }
    }

    /// The voice's parts, in the order they play: intro, prompts, clips, track, outro.
    static func voiceLines(_ v: VoiceSettings) -> [String] {
        var voice: [String] = []
        if let intro = v.intro { voice.append("intro \(intro) at \(v.introAt.secondsText) s") }
        if !v.prompts.isEmpty, v.promptCycles > 0 {
            let kinds = PhaseKind.allCases.filter { v.prompts[$0] != nil }.map(\.rawValue)
            voice.append("prompts on \(kinds.joined(separator: ", ")) for \(v.promptCycles) cycles")
        }
        for clip in v.clips { voice.append("\(clip.sound) at \(clip.at.secondsText) s") }
        if let track = v.track { voice.append("track \(track) at \(v.trackAt.secondsText) s") }
        if let outro = v.outro { voice.append("outro \(outro) \(v.outroAfter.secondsText) s after the last breath") }
        return voice
    }

    /// The bells, in the order they ring: start, interval, listed minutes, countdown, end.
    static func bellLines(_ b: BellSettings) -> [String] {
        var bells: [String] = []
        if let start = b.start { bells.append("start \(start)") }
        if let every = b.every { bells.append("every \(Self.number(every.seconds / 60)) min of breathing") }
        if !b.at.isEmpty { bells.append("at \(b.at.count == 1 ? "minute" : "minutes") \(b.at.map { Self.number($0.seconds / 60) }.joined(separator: ", "))") }
        if b.countdownSeconds > 0 { bells.append("countdown \(b.countdownSeconds) s") }
        if let end = b.end { bells.append("end \(end)") }
        return bells
    }

    /// The text `presets NAME` prints: a line per part of the session.
    var text: String {
        var lines = ["\(name) (\(file))"]
        if !description.isEmpty { lines.append(description) }
        func row(_ key: String, _ value: String) { lines.append(key.padding(toLength: 11, withPad: " ", startingAt: 0) + value) }
        row("length", minutes.map { "\(Self.number($0)) min" } ?? "\(cycles ?? 0) cycles")
        row("settle", "\(Self.number(settleSeconds)) s")
        for (index, segment) in breathing.enumerated() { row(index == 0 ? "breathing" : "", segment) }
        if let fill { row("fill", fill) }
        row("closing", "at least \(Self.number(closingSeconds)) s")
        row("cues", cues.isEmpty ? "none" : cues.joined(separator: "; "))
        row("voice", voice.isEmpty ? "none" : voice.joined(separator: "; "))
        row("ambience", ambience.isEmpty ? "none" : ambience.joined(separator: "; "))
        row("bells", bells.isEmpty ? "none" : bells.joined(separator: "; "))
        row("master", master)
        return lines.joined(separator: "\n") + "\n"
    }

    static func span(_ span: SegmentSpan) -> String {
        switch span {
        case .cycles(let n): "\(n) cycle\(n == 1 ? "" : "s")"
        case .duration(let d): "\(number(d.seconds / 60)) min"
        }
    }

    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(format: "%g", v)
    }
}
