/// A session fitted to a length shorter than its preset was written for: a one-minute breathing
/// break from a fifteen-minute preset.
///
/// At the preset's own length (`minutes`, or settle + `cycles` + closing) and longer, nothing is
/// fitted: settle and closing are what the author wrote. Shorter than that:
///
/// - Settle and closing take at most a third of the session between them: past that they shrink
///   in proportion (each down to 2 s and 3 s, or less when even that leaves no whole cycle).
/// - Chained segments (and ramps) timed in minutes or cycles shrink in proportion to the breathing
///   time there is against the breathing time the preset's own length gives, each keeping at least
///   one cycle; a segment that still does not fit is left out, with a note.
/// - A bed that takes over at a minute (`from-minute`) past the end of the shorter session takes
///   over at the same fraction of it, as one given as a fraction (`from`) does.
/// - The ambience and master fades are held to a quarter of the session each.
/// - Voice that no longer fits (an intro longer than the settle, an outro longer than the closing,
///   a clip past the end, a track longer than the session) is left out by the planner, with a note.
/// - The end bell rings out: the master fade-out waits for it, and an outro that would leave it no
///   room is left out by the planner, with a note; where the closing is too short even so, a note
///   says by how much.
///
/// Every change is said in `changes`, what is left out in `notes`. Only a session shorter than one cycle cannot be fitted.
public struct ShortSessionFit: Sendable {
    /// The session as it will play.
    public var session: Session
    /// Whether anything was changed.
    public var adapted: Bool
    /// What had to be left out, as warnings for the report.
    public var notes: [String]
    /// What the fit changed (settle, closing, segments, fades, beds), one line each, for `render`,
    /// `cues` and `validate` to say.
    public var changes: [String]

    /// The least settle and closing a fitted session keeps, when there is room for them.
    static let minimumSettle = SessionTime.seconds(2)
    static let minimumClosing = SessionTime.seconds(3)

    public init(session original: Session, total: SessionTime) {
        var session = original
        var notes: [String] = []
        var changes: [String] = []
        let settle = original.settle, closing = original.closing
        let cap = SessionTime(milliseconds: total.milliseconds / 3)
        let firstCycle = original.segments.first?.shortestCycle ?? .zero
        var adapted = false
        // What the author wrote is kept at the preset's own length and beyond.
        let own = original.ownLength
        let shorter = total < own

        if shorter, settle + closing > cap {
            adapted = true
            let both = Double((settle + closing).milliseconds)
            func scaled(_ t: SessionTime, minimum: SessionTime, to room: SessionTime) -> SessionTime {
                let share = SessionTime(milliseconds: Int64((Double(t.milliseconds) * Double(room.milliseconds) / both).rounded()))
                return max(min(t, minimum), share)
            }
            session.settle = scaled(settle, minimum: Self.minimumSettle, to: cap)
            session.closing = scaled(closing, minimum: Self.minimumClosing, to: cap)
            // Room for one whole cycle at least: past the minimums, settle and closing give way.
            if total - session.settle - session.closing < firstCycle {
                let room = total - firstCycle
                if room > .zero {
                    let now = Double((session.settle + session.closing).milliseconds)
                    session.settle = SessionTime(milliseconds: Int64((Double(session.settle.milliseconds) * Double(room.milliseconds) / now).rounded(.down)))
                    session.closing = room - session.settle
                } else {
                    session.settle = .zero
                    session.closing = .zero
                }
            }
            changes.append("the \(Self.minutesText(total)) session is shorter than the preset's \(Self.minutesText(own)): "
                + "settle \(settle.secondsText) → \(session.settle.secondsText) s, closing \(closing.secondsText) → \(session.closing.secondsText) s")
        }

        // Chained segments in proportion to the breathing time there is.
        let budget = total - session.settle - session.closing
        let fixed = original.segments.dropLast().reduce(SessionTime.zero) { sum, segment in
            switch segment.span {
            case .duration(let d)?: return sum + d
            case .cycles(let n)?: return sum + segment.pattern.cycleLength * Int64(n)
            case nil: return sum
            }
        }
        let lastCycle = original.segments.last?.shortestCycle ?? .zero
        let nominal: SessionTime
        if case .duration(let d) = original.defaultLength, d - settle - closing > fixed + lastCycle {
            nominal = d - settle - closing
        } else {
            nominal = fixed + lastCycle
        }
        if original.segments.count > 1 || original.segments.first?.ramp != nil, nominal > .zero, (budget < nominal) {
            let k = Double(budget.milliseconds) / Double(nominal.milliseconds)
            func shrink(_ span: SegmentSpan?, cycle: SessionTime) -> SegmentSpan? {
                switch span {
                case .duration(let d)?:
                    return .duration(max(cycle, SessionTime(milliseconds: Int64((Double(d.milliseconds) * k).rounded()))))
                case .cycles(let n)?: return .cycles(max(1, Int((Double(n) * k).rounded())))
                case nil: return nil
                }
            }
            var shortened: [String] = []
            for index in session.segments.indices {
                let cycle = session.segments[index].shortestCycle
                let label = session.segments[index].name ?? "segment \(index + 1)"
                if index < session.segments.count - 1 {
                    let before = session.segments[index].span
                    session.segments[index].span = shrink(before, cycle: cycle)
                    if let before, before != session.segments[index].span {
                        shortened.append("\(label) \(Self.spanText(before)) → \(Self.spanText(session.segments[index].span!))")
                    }
                }
                if var ramp = session.segments[index].ramp {
                    let before = ramp.span
                    ramp.span = shrink(ramp.span, cycle: cycle) ?? ramp.span
                    session.segments[index].ramp = ramp
                    if before != ramp.span {
                        shortened.append("\(label)'s ramp \(Self.spanText(before)) → \(Self.spanText(ramp.span))")
                    }
                }
            }
            if !shortened.isEmpty {
                changes.append("shortened in proportion to the breathing time there is: " + shortened.joined(separator: ", "))
            }
            if original.segments.count > 1 {
                adapted = true
                // Segments left with no room at all are left out; the last one kept takes the rest.
                var used = SessionTime.zero
                var kept = 0
                for segment in session.segments {
                    let least: SessionTime
                    switch segment.span {
                    case .duration(let d)?: least = max(d, segment.shortestCycle)
                    case .cycles(let n)?: least = segment.pattern.cycleLength * Int64(n)
                    case nil: least = segment.shortestCycle
                    }
                    if kept > 0, used + segment.shortestCycle > budget { break }
                    used += least
                    kept += 1
                }
                if kept < session.segments.count {
                    let dropped = session.segments[kept...].map { $0.name ?? $0.pattern.description }
                    session.segments = Array(session.segments[..<kept])
                    notes.append("the session is too short for the segment\(dropped.count == 1 ? "" : "s") \(dropped.joined(separator: ", ")): left out")
                }
                session.segments[session.segments.count - 1].span = nil
            }
        }

        if adapted {
            let quarter = SessionTime(milliseconds: total.milliseconds / 4)
            var held: [String] = []
            func hold(_ value: inout SessionTime, _ name: String) {
                if value > quarter {
                    held.append("\(name) \(value.secondsText) → \(quarter.secondsText) s")
                    value = quarter
                }
            }
            hold(&session.ambienceFadeIn, "ambience fade-in")
            hold(&session.ambienceFadeOut, "ambience fade-out")
            hold(&session.master.fadeIn, "master fade-in")
            hold(&session.master.fadeOut, "master fade-out")
            hold(&session.ambienceCrossfade, "ambience crossfade")
            if !held.isEmpty { changes.append("fades held to a quarter of the session: " + held.joined(separator: ", ")) }
        }
        // A bed that takes over at a minute past the end of the shorter session (or too near it
        // for its crossfade) moves to the same fraction of it, as `from: 0.5` does.
        if shorter, own > .zero {
            var moved: [String] = []
            let half = SessionTime(milliseconds: max(session.ambienceCrossfade, AmbienceBed.shortestCrossfade).milliseconds / 2)
            for index in session.ambience.indices {
                guard case .time(let at)? = session.ambience[index].from, at + half > total else { continue }
                let scaled = SessionTime(milliseconds: Int64((Double(at.milliseconds) * Double(total.milliseconds) / Double(own.milliseconds)).rounded()))
                session.ambience[index].from = .time(scaled)
                moved.append("'\(session.ambience[index].sound)' from \(at.secondsText) → \(scaled.secondsText) s")
            }
            if !moved.isEmpty {
                changes.append("the beds' 'from-minute' past the end of the \(Self.minutesText(total)) session scaled to it: " + moved.joined(separator: ", "))
            }
        }

        self.session = session
        self.adapted = adapted
        self.notes = notes
        self.changes = changes
    }
}

extension ShortSessionFit {
    /// `15 min`, `1.5 min`, `0.25 min`.
    static func minutesText(_ t: SessionTime) -> String {
        "\(SessionTime(milliseconds: (t.milliseconds + 30) / 60).secondsText) min"
    }

    /// A segment's or ramp's span as the preset gives it: `180 s`, `12 cycles`.
    static func spanText(_ span: SegmentSpan) -> String {
        switch span {
        case .duration(let d): "\(d.secondsText) s"
        case .cycles(let n): "\(n) cycle\(n == 1 ? "" : "s")"
        }
    }
}

extension SessionTime {
    /// Seconds with up to three decimals and no trailing zeros: `20`, `7.5`, `0.333`.
    public var secondsText: String {
        let whole = milliseconds / 1000, rest = milliseconds % 1000
        guard rest != 0 else { return "\(whole)" }
        var decimals = String(rest + 1000).dropFirst()
        while decimals.hasSuffix("0") { decimals = decimals.dropLast() }
        return "\(whole).\(decimals)"
    }
}
