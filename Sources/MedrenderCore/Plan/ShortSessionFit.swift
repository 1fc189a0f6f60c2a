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
        var adapted = false
        // What the author wrote is kept at the preset's own length and beyond.
        let own = original.ownLength
        let shorter = total < own

        if shorter, original.settle + original.closing > SessionTime(milliseconds: total.milliseconds / 3) {
            adapted = true
            changes.append(Self.shrinkSettleAndClosing(&session, total: total, own: own))
        }
        if Self.shrinkSegments(&session, original: original, total: total, changes: &changes, notes: &notes) {
            adapted = true
        }
        if adapted, let held = Self.holdFades(&session, total: total) {
            changes.append(held)
        }
        if shorter, own > .zero, let moved = Self.moveLateBeds(&session, total: total, own: own) {
            changes.append(moved)
        }

        self.session = session
        self.adapted = adapted
        self.notes = notes
        self.changes = changes
    }

    /// Shrinks settle and closing in proportion to a third of `total` between them (each down to
    /// its minimum), and further where even that leaves no whole first cycle; returns the change
    /// line that says so.
    private static func shrinkSettleAndClosing(_ session: inout Session, total: SessionTime, own: SessionTime) -> String {
        let settle = session.settle, closing = session.closing
        let cap = SessionTime(milliseconds: total.milliseconds / 3)
        let firstCycle = session.segments.first?.shortestCycle ?? .zero
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
        return "the \(Self.minutesText(total)) session is shorter than the preset's \(Self.minutesText(own)): "
            + "settle \(settle.secondsText) → \(session.settle.secondsText) s, closing \(closing.secondsText) → \(session.closing.secondsText) s"
    }

    /// Shrinks chained segments (and ramps) in proportion to the breathing time there is against
    /// the breathing time of the preset's own length, and leaves out those with no room at all;
    /// returns whether the segments were fitted (there is more than one).
    private static func shrinkSegments(_ session: inout Session, original: Session, total: SessionTime,
                                       changes: inout [String], notes: inout [String]) -> Bool {
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
        if case .duration(let d) = original.defaultLength, d - original.settle - original.closing > fixed + lastCycle {
            nominal = d - original.settle - original.closing
        } else {
            nominal = fixed + lastCycle
        }
        guard original.segments.count > 1 || original.segments.first?.ramp != nil, nominal > .zero, (budget < nominal) else { return false }
        let shortened = shortenSpans(&session.segments, by: Double(budget.milliseconds) / Double(nominal.milliseconds))
        if !shortened.isEmpty {
            changes.append("shortened in proportion to the breathing time there is: " + shortened.joined(separator: ", "))
        }
        guard original.segments.count > 1 else { return false }
        if let dropped = dropSegmentsPast(budget, from: &session.segments) {
            notes.append(dropped)
        }
        return true
    }

    /// Shortens each segment's span but the last's, and each ramp's, by the factor `k` (keeping at
    /// least one cycle); returns what changed, one phrase each.
    private static func shortenSpans(_ segments: inout [PatternSegment], by k: Double) -> [String] {
        func shrink(_ span: SegmentSpan?, cycle: SessionTime) -> SegmentSpan? {
            switch span {
            case .duration(let d)?:
                return .duration(max(cycle, SessionTime(milliseconds: Int64((Double(d.milliseconds) * k).rounded()))))
            case .cycles(let n)?: return .cycles(max(1, Int((Double(n) * k).rounded())))
            case nil: return nil
            }
        }
        var shortened: [String] = []
        for index in segments.indices {
            let cycle = segments[index].shortestCycle
            let label = segments[index].name ?? "segment \(index + 1)"
            if index < segments.count - 1 {
                let before = segments[index].span
                segments[index].span = shrink(before, cycle: cycle)
                if let before, before != segments[index].span {
                    shortened.append("\(label) \(Self.spanText(before)) → \(Self.spanText(segments[index].span!))")
                }
            }
            if var ramp = segments[index].ramp {
                let before = ramp.span
                ramp.span = shrink(ramp.span, cycle: cycle) ?? ramp.span
                segments[index].ramp = ramp
                if before != ramp.span {
                    shortened.append("\(label)'s ramp \(Self.spanText(before)) → \(Self.spanText(ramp.span))")
                }
            }
        }
        return shortened
    }

    /// Leaves out the segments with no room at all in `budget`; the last one kept takes the rest
    /// (its span is cleared). Returns the note naming those left out, if any.
    private static func dropSegmentsPast(_ budget: SessionTime, from segments: inout [PatternSegment]) -> String? {
        var used = SessionTime.zero
        var kept = 0
        for segment in segments {
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
        var note: String?
        if kept < segments.count {
            let dropped = segments[kept...].map { $0.name ?? $0.pattern.description }
            segments = Array(segments[..<kept])
            note = "the session is too short for the segment\(dropped.count == 1 ? "" : "s") \(dropped.joined(separator: ", ")): left out"
        }
        segments[segments.count - 1].span = nil
        return note
    }

    /// Holds the ambience and master fades (and the ambience crossfade) to a quarter of `total`;
    /// returns the change line, or nil when none was longer.
    private static func holdFades(_ session: inout Session, total: SessionTime) -> String? {
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
        return held.isEmpty ? nil : "fades held to a quarter of the session: " + held.joined(separator: ", ")
    }

    /// A bed that takes over at a minute past the end of the shorter session (or too near it
    /// for its crossfade) moves to the same fraction of it, as `from: 0.5` does; returns the
    /// change line, or nil when none moved.
    private static func moveLateBeds(_ session: inout Session, total: SessionTime, own: SessionTime) -> String? {
        var moved: [String] = []
        let half = SessionTime(milliseconds: max(session.ambienceCrossfade, AmbienceBed.shortestCrossfade).milliseconds / 2)
        for index in session.ambience.indices {
            guard case .time(let at)? = session.ambience[index].from, at + half > total else { continue }
            let scaled = SessionTime(milliseconds: Int64((Double(at.milliseconds) * Double(total.milliseconds) / Double(own.milliseconds)).rounded()))
            session.ambience[index].from = .time(scaled)
            moved.append("'\(session.ambience[index].sound)' from \(at.secondsText) → \(scaled.secondsText) s")
        }
        guard !moved.isEmpty else { return nil }
        return "the beds' 'from-minute' past the end of the \(Self.minutesText(total)) session scaled to it: " + moved.joined(separator: ", ")
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
