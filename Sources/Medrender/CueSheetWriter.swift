import Foundation
import MedrenderCore
import MedrenderIO

/// The formats of a cue sheet, by extension.
public enum CueSheetFormat: String, CaseIterable, Sendable {
    /// `{"rate": R, "frames": N, "cycles": C, "sections": […], "events": [{"type", "name", "frame",
    /// "seconds", "endFrame", "endSeconds"}], "cues": [{"kind", "frame", "seconds", "cycle"}]}`.
    case json
    /// WebVTT captions, "Breathe in" / "Hold" / "Breathe out" timed to the phases.
    case vtt
    /// An Audacity label track: start, end and label, tab-separated, in seconds.
    case txt

    public static func forPath(_ path: String) -> CueSheetFormat? {
        guard let ext = path.split(separator: ".").last, path.contains(".") else { return nil }
        return CueSheetFormat(rawValue: ext.lowercased())
    }
}

extension TimelineEvent {
    /// What a caption shows for it, in `words`' language: the section's name, what the voice
    /// says, or the sound in brackets.
    public func caption(_ words: Words) -> String {
        switch kind {
        case .section: name
        case .voice: text ?? "[\(words.voice.lowercased()): \(label)]"
        case .bell: "[\(words.bell.lowercased())]"
        case .countdown: "[\(words.tick.lowercased())]"
        }
    }
}

/// Writes a plan's cue sheet, generated in one pass over the schedule.
public enum CueSheetWriter {
    /// The JSON text of the cue sheet, built in one pass over the schedule.
    public static func json(_ plan: RenderPlan) -> String {
        var text = "{\"rate\": \(plan.rate), \"frames\": \(plan.totalFrames), \"cycles\": \(plan.schedule.cycleCount),\n"
        if let speaker = plan.guide.speaker { text += " \"voice\": \"\(escape(speaker))\",\n" }
        text += " \"sections\": ["
        text += plan.sections.map {
            "{\"name\": \"\(escape(plan.guide.language.words.section($0)))\", \"frame\": \($0.frame), \"seconds\": \($0.time)}"
        }.joined(separator: ", ")
        text += "],\n \"events\": [\n"
        text += plan.events.map {
            "  {\"type\": \"\($0.kind.rawValue)\", \"name\": \"\(escape($0.name))\", \"frame\": \($0.frame), "
                + "\"seconds\": \(jsonSeconds($0.frame, plan.rate)), \"endFrame\": \($0.endFrame), \"endSeconds\": \(jsonSeconds($0.endFrame, plan.rate))"
                + ($0.text.map { ", \"text\": \"\(escape($0))\"" } ?? "") + "}"
        }.joined(separator: ",\n")
        text += "\n],\n \"cues\": [\n"
        var first = true
        for mark in plan.cueMarks {
            if !first { text += ",\n" }
            first = false
            text += "  {\"kind\": \"\(mark.kind.rawValue)\", \"frame\": \(mark.frame), \"seconds\": \(mark.time), \"cycle\": \(mark.cycle)}"
        }
        text += "\n]}\n"
        return text
    }

    static func escape(_ s: String) -> String { JSONString.escaped(s) }

    /// `H:MM:SS.mmm` as WebVTT wants it (hours always shown).
    static func vttTime(_ t: SessionTime) -> String { t.clockString }

    /// A frame's time in seconds for JSON: six decimals at most, no trailing zeros.
    static func jsonSeconds(_ frame: Int64, _ rate: Int) -> String {
        var text = seconds(frame, rate)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The WebVTT captions: one cue per phase, from its start to its end, numbered; and one per
    /// section, voice clip and bell (`section-1`, `voice-1`, `bell-1`…), in order of their starts.
    public static func vtt(_ plan: RenderPlan) -> String {
        var text = "WEBVTT\n\nNOTE \(plan.schedule.cycleCount) cycles, \(plan.rate) Hz, \(plan.totalFrames) frames\n"
        func time(_ frame: Int64) -> SessionTime {
            SessionTime(milliseconds: (frame * 1000 + Int64(plan.rate) / 2) / Int64(plan.rate))
        }
        let events = plan.events
        let words = plan.guide.language.words
        var next = 0
        var counts: [TimelineEvent.Kind: Int] = [:]
        func emitEvents(before limit: SessionTime?) {
            while next < events.count, limit.map({ time(events[next].frame) <= $0 }) ?? true {
                let event = events[next]
                counts[event.kind, default: 0] += 1
                let end = max(time(event.endFrame), time(event.frame) + SessionTime(milliseconds: 1))
                text += "\n\(event.kind.rawValue)-\(counts[event.kind]!)\n\(vttTime(time(event.frame))) --> \(vttTime(end))\n\(event.caption(words))\n"
                next += 1
            }
        }
        var index = 0
        for mark in plan.cueMarks {
            emitEvents(before: mark.time)
            index += 1
            text += "\n\(index)\n\(vttTime(mark.time)) --> \(vttTime(mark.time + mark.length))\n\(words.instruction(mark.kind))\n"
        }
        emitEvents(before: nil)
        return text
    }

    /// The Audacity label track: sections as point labels, voice clips, bells and phases as region
    /// labels.
    public static func audacityLabels(_ plan: RenderPlan) -> String {
        var text = ""
        let rate = plan.rate
        let words = plan.guide.language.words
        for section in plan.sections {
            text += "\(seconds(section.frame, rate))\t\(seconds(section.frame, rate))\t\(words.section(section))\n"
        }
        for event in plan.events where event.kind != .section {
            text += "\(seconds(event.frame, rate))\t\(seconds(event.endFrame, rate))\t\(event.caption(words))\n"
        }
        for mark in plan.cueMarks {
            let end = (mark.time + mark.length).frame(atRate: rate)
            text += "\(seconds(mark.frame, rate))\t\(seconds(end, rate))\t\(words.instruction(mark.kind)) (\(mark.cycle))\n"
        }
        return text
    }

    /// A frame's time in seconds with six decimals, as Audacity writes them: the sample's own
    /// time, so a label sits on the cue's sample at any rate.
    static func seconds(_ frame: Int64, _ rate: Int) -> String {
        let micro = (frame * 1_000_000 + Int64(rate) / 2) / Int64(rate)
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }

    /// The cue sheet's text in `format`.
    public static func text(_ plan: RenderPlan, format: CueSheetFormat) -> String {
        switch format {
        case .json: json(plan)
        case .vtt: vtt(plan)
        case .txt: audacityLabels(plan)
        }
    }

    /// Writes the cue sheet atomically to `path`, in `format` or the one its extension names; a
    /// pipe or a device at `path` (`/dev/stdout`, a FIFO, `/dev/null`) is written into, as a
    /// render writes into one, never replaced.
    public static func write(_ plan: RenderPlan, to path: String, format: CueSheetFormat? = nil) throws(IOError) {
        if StreamOutput.isStream(path) {
            guard let format = format ?? CueSheetFormat.forPath(path) else {
                throw IOError(.cannotCreate, "is not a cue sheet format; give {format} json, vtt or txt", path: path)
            }
            let stream = try StreamOutput(path: path)
            let bytes = Array(text(plan, format: format).utf8)
            var failure: IOError?
            bytes.withUnsafeBytes { buffer in
                do throws(IOError) { try stream.write(buffer) } catch { failure = error }
            }
            if let failure { throw failure }
            return
        }
        try prepare(plan, to: path, format: format).commit()
    }

    /// The cue sheet written to a temporary file beside `path`, to be committed (with the audio
    /// it belongs to).
    public static func prepare(_ plan: RenderPlan, to path: String, format: CueSheetFormat? = nil) throws(IOError) -> AtomicOutputFile {
        guard let format = format ?? CueSheetFormat.forPath(path) else {
            throw IOError(.cannotCreate, "is not a cue sheet format; end it in .json, .vtt or .txt", path: path)
        }
        let file = try AtomicOutputFile(path: path)
        try file.write(Array(text(plan, format: format).utf8))
        return file
    }
}
