import MedrenderCore

/// The session's timeline drawn as one SVG: the waveform's envelope, the sections, every breath
/// phase coloured by kind with the circle's level over it, the voice clips, the ambience beds with
/// their crossfades and the dips under the voice, and the bells, over a time axis.
///
/// It stands alone (a README or a pull request shows it as an image) and is the preview page's
/// timeline, where a click seeks: the plot's left edge, width and duration are on the root element
/// (`data-plot-left`, `data-plot-width`, `data-duration`, in SVG units and seconds).
public struct SessionPlot: Sendable {
    public var timeline: SessionTimeline
    /// The drawing's width in SVG units (pixels at 1:1), 600…4000, default 1200.
    public var width: Double
    /// Adds the playhead line the page moves.
    public var interactive: Bool

    /// Each phase kind's colour, as the plot and the page draw it.
    public static let colours: [(PhaseKind, String)] = [
        (.inhale, "#7db9de"), (.holdIn, "#b7a8dd"), (.topUp, "#4f8fc0"), (.exhale, "#86cfae"), (.holdOut, "#e2c98f"),
    ]
    static func colour(_ kind: PhaseKind) -> String { colours.first { $0.0 == kind }?.1 ?? "#cccccc" }

    /// Drawn one by one up to this many phases; beyond it, each segment is one band.
    static let phasesDrawnOneByOne = 3000

    static let left = 84.0, right = 16.0

    public init(timeline: SessionTimeline, width: Double = 1200, interactive: Bool = false) {
        self.timeline = timeline
        self.width = min(4000, max(600, width))
        self.interactive = interactive
    }

    var plotWidth: Double { width - Self.left - Self.right }
    func x(_ seconds: Double) -> Double {
        Self.left + plotWidth * min(1, max(0, seconds / max(timeline.durationSeconds, 0.001)))
    }
    func n(_ value: Double) -> String { Markup.number(value, decimals: 1) }

    /// The lanes from the top, with their heights.
    enum Lane: String, CaseIterable {
        case waveform, sections, breath, voice, ambience, bells, axis
        var height: Double {
            switch self {
            case .waveform: 52
            case .sections: 20
            case .breath: 46
            case .voice: 22
            case .ambience: 34
            case .bells: 18
            case .axis: 22
            }
        }
        var title: String {
            switch self {
            case .waveform: "waveform"
            case .sections: "sections"
            case .breath: "breath"
            case .voice: "voice"
            case .ambience: "ambience"
            case .bells: "bells"
            case .axis: ""
            }
        }
    }

    static let top = 34.0, gap = 6.0, legendHeight = 26.0

    var lanes: [Lane] { Lane.allCases.filter { $0 != .waveform || !timeline.envelope.isEmpty } }

    /// The top of each lane.
    func laneTops() -> [Lane: Double] {
        var tops: [Lane: Double] = [:]
        var y = Self.top
        for lane in lanes {
            tops[lane] = y
            y += lane.height + Self.gap
        }
        return tops
    }

    var height: Double { Self.top + lanes.reduce(0) { $0 + $1.height + Self.gap } + Self.legendHeight }

    /// The SVG document.
    public var svg: String {
        let t = timeline
        let tops = laneTops()
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" class="session-plot" viewBox="0 0 \(n(width)) \(n(height))" \
            width="\(n(width))" height="\(n(height))" role="img" data-plot-left="\(n(Self.left))" \
            data-plot-width="\(n(plotWidth))" data-duration="\(Markup.number(t.durationSeconds, decimals: 6))" \
            font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="11">
            <title>\(Markup.escape(t.title)): \(Markup.clock(t.durationSeconds)), \(t.cycleCount) cycles</title>
            <rect x="0" y="0" width="\(n(width))" height="\(n(height))" fill="#fbfcfd"/>
            <text x="\(n(Self.left))" y="21" font-size="15" fill="#2b3a4a">\(Markup.escape(t.title))</text>
            <text x="\(n(width - Self.right))" y="21" text-anchor="end" fill="#5b6b7b">\
            \(Markup.clock(t.durationSeconds)) · \(t.cycleCount) cycles · \(t.rate) Hz</text>

            """
        for lane in lanes where lane != .axis {
            let y = tops[lane]!
            out += "<text x=\"\(n(Self.left - 8))\" y=\"\(n(y + lane.height / 2 + 4))\" text-anchor=\"end\" fill=\"#6b7b8b\">\(lane.title)</text>\n"
            out += "<rect x=\"\(n(Self.left))\" y=\"\(n(y))\" width=\"\(n(plotWidth))\" height=\"\(n(lane.height))\" fill=\"#f1f4f7\"/>\n"
        }
        if let y = tops[.waveform] { out += waveform(top: y) }
        out += sections(top: tops[.sections]!)
        out += breath(top: tops[.breath]!)
        out += voice(top: tops[.voice]!)
        out += ambience(top: tops[.ambience]!)
        out += bells(top: tops[.bells]!)
        out += axis(top: tops[.axis]!)
        out += legend(top: height - Self.legendHeight + 4)
        if interactive {
            let y0 = Self.top, y1 = tops[.axis]! - Self.gap
            out += "<line id=\"playhead\" x1=\"\(n(Self.left))\" x2=\"\(n(Self.left))\" y1=\"\(n(y0))\" y2=\"\(n(y1))\" stroke=\"#d0455b\" stroke-width=\"1.5\"/>\n"
        }
        out += "</svg>\n"
        return out
    }

    func waveform(top: Double) -> String {
        let env = timeline.envelope
        let h = Lane.waveform.height, mid = top + h / 2
        // At most two points per unit of width: each the loudest of the slices it covers.
        let count = min(env.count, Int(plotWidth * 2))
        guard count > 0 else { return "" }
        var peaks = [Float](repeating: 0, count: count)
        for (i, value) in env.enumerated() {
            let j = min(count - 1, i * count / env.count)
            peaks[j] = max(peaks[j], min(1, abs(value)))
        }
        var upper = "", lower = ""
        for (i, peak) in peaks.enumerated() {
            let px = Self.left + plotWidth * (Double(i) + 0.5) / Double(count)
            let dy = max(0.5, Double(peak) * (h / 2 - 2))
            upper += "\(n(px)),\(n(mid - dy)) "
            lower = "\(n(px)),\(n(mid + dy)) " + lower
        }
        return "<polygon points=\"\(upper)\(lower)\" fill=\"#8696a8\"/>\n"
    }

    func sections(top: Double) -> String {
        var out = ""
        let palette = ["#dfe7ee", "#e7eef3"]
        for (index, section) in timeline.sections.enumerated() {
            let x0 = x(section.startSeconds), x1 = x(section.endSeconds)
            out += "<rect x=\"\(n(x0))\" y=\"\(n(top))\" width=\"\(n(max(0.5, x1 - x0)))\" height=\"\(n(Lane.sections.height))\" fill=\"\(palette[index % 2])\"><title>\(Markup.escape(section.name)) \(Markup.clock(section.startSeconds))–\(Markup.clock(section.endSeconds))</title></rect>\n"
            if x1 - x0 > 24 {
                out += "<text x=\"\(n(x0 + 4))\" y=\"\(n(top + 14))\" fill=\"#3f4f5f\">\(Markup.escape(clipped(section.name, width: x1 - x0 - 8)))</text>\n"
            }
            if index > 0 {
                out += "<line x1=\"\(n(x0))\" x2=\"\(n(x0))\" y1=\"\(n(Self.top))\" y2=\"\(n(laneTops()[.axis]! - Self.gap))\" stroke=\"#9aa9b8\" stroke-dasharray=\"3 3\"/>\n"
            }
        }
        return out
    }

    /// `text` cut to fit about `width` units at the plot's font size.
    func clipped(_ text: String, width: Double) -> String {
        let fits = Int(width / 6.2)
        if text.count <= fits { return text }
        return fits > 1 ? String(text.prefix(fits - 1)) + "…" : ""
    }

    func breath(top: Double) -> String {
        let t = timeline
        let h = Lane.breath.height
        var out = ""
        if t.phases.count <= Self.phasesDrawnOneByOne {
            for phase in t.phases {
                let x0 = x(phase.startSeconds), x1 = x(phase.endSeconds)
                out += "<rect x=\"\(n(x0))\" y=\"\(n(top))\" width=\"\(n(max(0.2, x1 - x0)))\" height=\"\(n(h))\" fill=\"\(Self.colour(phase.kind))\"/>\n"
            }
        } else {
            // Too many to tell apart: one band per segment, in the inhale's colour.
            var start = 0
            while start < t.phases.count {
                var end = start
                while end + 1 < t.phases.count && t.phases[end + 1].segment == t.phases[start].segment { end += 1 }
                let x0 = x(t.phases[start].startSeconds), x1 = x(t.phases[end].endSeconds)
                let cycles = t.phases[end].cycle - t.phases[start].cycle + 1
                out += "<rect x=\"\(n(x0))\" y=\"\(n(top))\" width=\"\(n(x1 - x0))\" height=\"\(n(h))\" fill=\"\(Self.colour(.inhale))\" opacity=\"0.6\"><title>\(cycles) cycles</title></rect>\n"
                start = end + 1
            }
        }
        // The circle's level, sampled twice per unit of width.
        let samples = Int(plotWidth * 2)
        var points = ""
        for i in 0...samples {
            let seconds = t.durationSeconds * Double(i) / Double(samples)
            let level = t.moment(at: seconds).level
            points += "\(n(x(seconds))),\(n(top + h - 3 - level * (h - 6))) "
        }
        out += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"#2f4d6a\" stroke-width=\"1.2\" stroke-linejoin=\"round\"/>\n"
        return out
    }

    func voice(top: Double) -> String {
        var out = ""
        let h = Lane.voice.height
        for clip in timeline.clips where clip.kind == .voice {
            let x0 = x(clip.startSeconds), x1 = x(clip.endSeconds)
            out += "<rect x=\"\(n(x0))\" y=\"\(n(top + 2))\" width=\"\(n(max(1, x1 - x0)))\" height=\"\(n(h - 4))\" rx=\"3\" fill=\"#c98bb0\"><title>\(Markup.escape(clip.name)) \(Markup.clock(clip.startSeconds))</title></rect>\n"
            let name = clip.name.split(separator: "/").last.map(String.init) ?? clip.name
            if x1 - x0 > 30 {
                out += "<text x=\"\(n(x0 + 3))\" y=\"\(n(top + 15))\" fill=\"#ffffff\" font-size=\"10\">\(Markup.escape(clipped(name, width: x1 - x0 - 6)))</text>\n"
            }
        }
        return out
    }

    func ambience(top: Double) -> String {
        var out = ""
        let h = Lane.ambience.height
        let palette = ["#9cc7a4", "#a9b8dc", "#d9b38c", "#9fcdd0"]
        let high = top + 5, low = top + h
        for (index, bed) in timeline.beds.enumerated() {
            let x0 = x(bed.startSeconds), x1 = x(bed.endSeconds)
            let xi = x(bed.startSeconds + bed.fadeInSeconds), xo = x(bed.endSeconds - bed.fadeOutSeconds)
            out += "<polygon points=\"\(n(x0)),\(n(low)) \(n(xi)),\(n(high)) \(n(xo)),\(n(high)) \(n(x1)),\(n(low))\" fill=\"\(palette[index % palette.count])\" opacity=\"0.75\"><title>\(Markup.escape(bed.name)) \(Markup.clock(bed.startSeconds))–\(Markup.clock(bed.endSeconds))</title></polygon>\n"
            if x1 - x0 > 60 {
                let name = bed.name.split(separator: "/").last.map(String.init) ?? bed.name
                out += "<text x=\"\(n(max(x0, xi - 20) + 4))\" y=\"\(n(low - 5))\" fill=\"#2f4a3a\" font-size=\"10\">\(Markup.escape(clipped(name, width: x1 - x0 - 8)))</text>\n"
            }
        }
        // The ambience's gain under the voice: down by the duck's depth (drawn to 30 dB full lane).
        if !timeline.dips.isEmpty {
            let depth = min(1, abs(timeline.duckDecibels) / 30) * (low - high)
            var path = ""
            for dip in timeline.dips {
                path += "M\(n(x(dip.startSeconds - dip.attackSeconds))),\(n(high)) L\(n(x(dip.startSeconds))),\(n(high + depth)) "
                path += "L\(n(x(dip.endSeconds))),\(n(high + depth)) L\(n(x(dip.endSeconds + dip.releaseSeconds))),\(n(high)) "
            }
            out += "<path d=\"\(path)\" fill=\"none\" stroke=\"#7a3f62\" stroke-width=\"1.2\"><title>ducking \(Markup.number(timeline.duckDecibels, decimals: 1)) dB under the voice</title></path>\n"
        }
        return out
    }

    func bells(top: Double) -> String {
        var out = ""
        let mid = top + Lane.bells.height / 2
        for clip in timeline.clips {
            switch clip.kind {
            case .bell:
                out += "<circle cx=\"\(n(x(clip.startSeconds)))\" cy=\"\(n(mid))\" r=\"5\" fill=\"#d4a13a\" stroke=\"#8a6514\"><title>\(Markup.escape(clip.name)) \(Markup.clock(clip.startSeconds))</title></circle>\n"
            case .countdown:
                out += "<line x1=\"\(n(x(clip.startSeconds)))\" x2=\"\(n(x(clip.startSeconds)))\" y1=\"\(n(mid - 4))\" y2=\"\(n(mid + 4))\" stroke=\"#8a6514\"/>\n"
            case .voice:
                break
            }
        }
        return out
    }

    /// The tick spacing: the smallest of the usual steps that gives at most 12 ticks.
    static func tickStep(_ duration: Double) -> Double {
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600]
        return steps.first { duration / $0 <= 12 } ?? 21600
    }

    func axis(top: Double) -> String {
        let duration = timeline.durationSeconds
        let step = Self.tickStep(duration)
        var out = "<line x1=\"\(n(Self.left))\" x2=\"\(n(Self.left + plotWidth))\" y1=\"\(n(top))\" y2=\"\(n(top))\" stroke=\"#9aa9b8\"/>\n"
        var tick = 0.0
        while tick <= duration + 1e-9 {
            let px = x(tick)
            out += "<line x1=\"\(n(px))\" x2=\"\(n(px))\" y1=\"\(n(top))\" y2=\"\(n(top + 4))\" stroke=\"#9aa9b8\"/>"
            let anchor = tick == 0 ? "start" : (px > Self.left + plotWidth - 20 ? "end" : "middle")
            out += "<text x=\"\(n(px))\" y=\"\(n(top + 16))\" text-anchor=\"\(anchor)\" fill=\"#5b6b7b\">\(Markup.clock(tick))</text>\n"
            tick += step
        }
        // The end, when the last tick is far enough from it to leave room for both labels.
        if duration - (tick - step) >= step * 0.4 {
            let px = x(duration)
            out += "<line x1=\"\(n(px))\" x2=\"\(n(px))\" y1=\"\(n(top))\" y2=\"\(n(top + 4))\" stroke=\"#9aa9b8\"/>"
            out += "<text x=\"\(n(px))\" y=\"\(n(top + 16))\" text-anchor=\"end\" fill=\"#5b6b7b\">\(Markup.clock(duration))</text>\n"
        }
        return out
    }

    func legend(top: Double) -> String {
        var out = ""
        var px = Self.left
        var items: [(String, String)] = Self.colours.filter { kind in timeline.phases.contains { $0.kind == kind.0 } }
            .map { kind, colour in
                let words = timeline.words
                let name = switch kind {
                case .holdIn: words.holdIn
                case .holdOut: words.holdOut
                default: words.instruction(kind)
                }
                return (timeline.language.isEnglish ? name.lowercased() : name, colour)
            }
        let words = timeline.words, lower = timeline.language.isEnglish
        items += [(lower ? words.voice.lowercased() : words.voice, "#c98bb0"), (words.ambience, "#9cc7a4"),
                  (lower ? words.bell.lowercased() : words.bell, "#d4a13a")]
        for (name, colour) in items {
            out += "<rect x=\"\(n(px))\" y=\"\(n(top))\" width=\"10\" height=\"10\" rx=\"2\" fill=\"\(colour)\"/>"
            out += "<text x=\"\(n(px + 14))\" y=\"\(n(top + 9))\" fill=\"#5b6b7b\">\(Markup.escape(name))</text>\n"
            px += 22 + Double(name.count) * 6.2
        }
        out += "<line x1=\"\(n(px))\" x2=\"\(n(px + 14))\" y1=\"\(n(top + 5))\" y2=\"\(n(top + 5))\" stroke=\"#2f4d6a\" stroke-width=\"1.2\"/>"
        out += "<text x=\"\(n(px + 18))\" y=\"\(n(top + 9))\" fill=\"#5b6b7b\">\(Markup.escape(timeline.words.circleSize))</text>\n"
        return out
    }
}
