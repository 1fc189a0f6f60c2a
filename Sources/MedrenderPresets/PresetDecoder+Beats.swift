import MedrenderCore

extension PresetDecoder {
    /// `beats:`: a kind, a beat, a carrier and a gain, then an optional `timeline` of points (each
    /// value not given keeps the one before) or `follow: breath` between `low` and `high`.
    static func decodeBeats(_ node: PresetNode) throws(PresetError) -> Beats {
        let f = try node.mapping(allowed: ["kind", "beat", "carrier", "gain", "timeline", "follow", "low", "high", "curve"])
        var beats = Beats()
        if let n = f["kind"] { beats.kind = try n.choice(Beats.Kind.self, what: "beats kind") }
        var first = BeatPoint(at: .time(.zero), location: location(of: node))
        if let n = f["beat"] { first.beatHertz = try n.number(in: Beats.beatRange, unit: "Hz") }
        if let n = f["carrier"] { first.carrierHertz = try n.number(in: Beats.carrierRange, unit: "Hz") }
        if let n = f["gain"] { first.gainDecibels = try n.number(in: -60...0, unit: "dB") }
        var points = [first]
        if let list = f["timeline"] {
            let items = try list.sequence()
            guard !items.isEmpty else { throw list.error("'timeline' is empty; give points such as { at: closing, beat: 4 }") }
            for item in items {
                let p = try item.mapping(allowed: ["at", "beat", "carrier", "gain", "curve"])
                guard let at = p["at"] else {
                    throw item.error("a timeline point needs 'at': seconds from the start, or start, breathing, segment N, closing or end")
                }
                var point = points[points.count - 1]
                point.at = try anchor(at)
                point.curve = .linear
                point.location = location(of: item)
                if let n = p["beat"] {
                    if f["follow"] != nil { throw n.error("the beat follows the breath ('follow: breath'); give 'low' and 'high', not a beat per point") }
                    point.beatHertz = try n.number(in: Beats.beatRange, unit: "Hz")
                }
                if let n = p["carrier"] { point.carrierHertz = try n.number(in: Beats.carrierRange, unit: "Hz") }
                if let n = p["gain"] { point.gainDecibels = try n.number(in: -60...0, unit: "dB") }
                if let n = p["curve"] { point.curve = try n.choice(FadeCurve.self, what: "curve") }
                if f["follow"] == nil, let violation = Beats.violation(beatHertz: point.beatHertz, carrierHertz: point.carrierHertz) {
                    throw (p["beat"] ?? p["carrier"] ?? item).error(violation)
                }
                // A point at the start replaces the starting values rather than sliding from them.
                if case .time(.zero) = point.at, points.count == 1 { points[0] = point } else { points.append(point) }
            }
        }
        if let n = f["follow"] {
            guard try n.string() == "breath" else {
                throw n.error("'follow' takes 'breath' (the beat rises on the inhale and falls on the exhale); found \(n.typeName)")
            }
            guard let lowNode = f["low"], let highNode = f["high"] else {
                throw n.error("'follow: breath' needs 'low' and 'high': the beat at the bottom and the top of the breath, in Hz, such as low: 6, high: 10")
            }
            if f["beat"] != nil { throw f["beat"]!.error("the beat follows the breath ('follow: breath'); give 'low' and 'high' instead of 'beat'") }
            let low = try lowNode.number(in: Beats.beatRange, unit: "Hz")
            let high = try highNode.number(in: Beats.beatRange, unit: "Hz")
            guard low < high else { throw highNode.error("'high' (\(format(high)) Hz) must be more than 'low' (\(format(low)) Hz)") }
            var follow = BreathBeat(lowHertz: low, highHertz: high)
            if let c = f["curve"] { follow.curve = try c.choice(FadeCurve.self, what: "curve") }
            beats.follow = follow
            for point in points {
                if let violation = Beats.violation(beatHertz: high, carrierHertz: point.carrierHertz) {
                    throw highNode.error(violation)
                }
            }
        } else {
            for key in ["low", "high", "curve"] where f[key] != nil {
                throw f[key]!.error("'\(key)' goes with 'follow: breath'; for a slide use 'timeline' points with a 'curve'")
            }
            if let violation = Beats.violation(beatHertz: first.beatHertz, carrierHertz: first.carrierHertz) {
                throw (f["beat"] ?? f["carrier"] ?? node).error(violation)
            }
        }
        beats.points = points
        return beats
    }

    static func location(of node: PresetNode) -> ScriptLocation {
        ScriptLocation(file: node.file, line: node.line ?? 0, column: node.column ?? 0)
    }

    /// `at:` of a timeline point: seconds from the start, or a named place.
    static func anchor(_ node: PresetNode) throws(PresetError) -> BeatPoint.Anchor {
        if case .scalar(let s) = node.node, Double(s.string.trimmingCharacters(in: .whitespaces)) == nil {
            let words = s.string.split(separator: " ")
            switch words.first.map(String.init) {
            case "start": return .time(.zero)
            case "breathing": return .breathing
            case "closing": return .closing
            case "end": return .end
            case "segment" where words.count == 2:
                guard let n = Int(words[1]), n >= 1 else { throw node.error("'segment N' takes a segment number from 1, found '\(words[1])'") }
                return .segment(n)
            default:
                let names = ["start", "breathing", "closing", "end", "segment"]
                var message = "unknown place '\(s.string)'"
                if let guess = didYouMean(s.string, among: names) { message += " (did you mean '\(guess)'?)" }
                throw node.error(message + "; give seconds from the start, or one of: start, breathing, segment N, closing, end")
            }
        }
        return .time(try node.seconds(in: 0...86400))
    }
}
