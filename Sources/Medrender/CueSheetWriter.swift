import Foundation
import MedrenderCore
import MedrenderIO

/// The formats of a cue sheet, by extension.
public enum CueSheetFormat: String, CaseIterable, Sendable {
    /// `{"rate": R, "frames": N, "cues": [{"kind", "frame", "seconds", "cycle"}], "sections": […]}`.
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

/// Writes a plan's cue sheet, generated in one pass over the schedule.
public enum CueSheetWriter {
    /// The JSON text of the cue sheet, built in one pass over the schedule.
    public static func json(_ plan: RenderPlan) -> String {
        var text = "{\"rate\": \(plan.rate), \"frames\": \(plan.totalFrames), \"cycles\": \(plan.schedule.cycleCount),\n"
        text += " \"sections\": ["
        text += plan.sections.map {
            "{\"name\": \"\(escape($0.name))\", \"frame\": \($0.frame), \"seconds\": \($0.time)}"
        }.joined(separator: ", ")
        text += "],\n \"cues\": [\n"
        var first = true
        for mark in plan.cueMarks {
            if !first { text += ",\n" }
            first = false
            text += "  {\"kind\": \"\(mark.kind.rawValue)\", \"frame\": \(mark.frame), \"seconds\": \(mark.time), \"cycle\": \(mark.cycle)}"
        }
        text += "\n]}\n"
        return text
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if ch.value < 0x20 { out += String(format: "\\u%04x", ch.value) } else { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }

    /// `H:MM:SS.mmm` as WebVTT wants it (hours always shown).
    static func vttTime(_ t: SessionTime) -> String { t.clockString }

    /// The WebVTT captions: one cue per phase, from its start to its end.
    public static func vtt(_ plan: RenderPlan) -> String {
        var text = "WEBVTT\n\nNOTE \(plan.schedule.cycleCount) cycles, \(plan.rate) Hz, \(plan.totalFrames) frames\n"
        var index = 0
        for mark in plan.cueMarks {
            index += 1
            text += "\n\(index)\n\(vttTime(mark.time)) --> \(vttTime(mark.time + mark.length))\n\(mark.kind.instruction)\n"
        }
        return text
    }

    /// The Audacity label track: sections as point labels, phases as region labels.
    public static func audacityLabels(_ plan: RenderPlan) -> String {
        var text = ""
        let rate = plan.rate
        for section in plan.sections {
            text += "\(seconds(section.frame, rate))\t\(seconds(section.frame, rate))\t\(section.name)\n"
        }
        for mark in plan.cueMarks {
            let end = (mark.time + mark.length).frame(atRate: rate)
            text += "\(seconds(mark.frame, rate))\t\(seconds(end, rate))\t\(mark.kind.instruction) (\(mark.cycle))\n"
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

    /// Writes the cue sheet atomically to `path`, in the format its extension names.
    public static func write(_ plan: RenderPlan, to path: String) throws(IOError) {
        try prepare(plan, to: path).commit()
    }

    /// The cue sheet written to a temporary file beside `path`, to be committed (with the audio
    /// it belongs to).
    static func prepare(_ plan: RenderPlan, to path: String) throws(IOError) -> AtomicOutputFile {
        let text: String
        switch CueSheetFormat.forPath(path) {
        case .json?: text = json(plan)
        case .vtt?: text = vtt(plan)
        case .txt?: text = audacityLabels(plan)
        case nil: throw IOError(.cannotCreate, "is not a cue sheet format; end it in .json, .vtt or .txt", path: path)
        }
        let file = try AtomicOutputFile(path: path)
        try file.write(Array(text.utf8))
        return file
    }
}
