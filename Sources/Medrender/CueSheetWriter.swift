import Foundation
import MedrenderCore
import MedrenderIO

/// Writes a plan's cue sheet as JSON:
/// `{"rate": R, "frames": N, "cues": [{"kind": "inhale", "frame": F, "seconds": S, "cycle": C}], "sections": […]}`.
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

    /// Writes the JSON cue sheet atomically to `path`.
    public static func write(_ plan: RenderPlan, to path: String) throws(IOError) {
        let file = try AtomicOutputFile(path: path)
        try file.write(Array(json(plan).utf8))
        try file.commit()
    }
}
