/// A session fitted to a length shorter than its preset was written for: a one-minute breathing
/// break from a fifteen-minute preset.
///
/// - Settle and closing take at most a third of the session between them: past that they shrink
///   in proportion (each down to 2 s and 3 s, or less when even that leaves no whole cycle).
/// - Chained segments (and ramps) timed in minutes or cycles shrink in proportion to the breathing
///   time there is against the breathing time the preset's own length gives, each keeping at least
///   one cycle; a segment that still does not fit is left out, with a note.
/// - The ambience and master fades are held to a quarter of the session each.
/// - Voice that no longer fits (an intro longer than the settle, an outro longer than the closing,
///   a clip past the end, a track longer than the session) is left out by the planner, with a note.
///
/// Only a session shorter than one cycle cannot be fitted. A session long enough for its preset
/// is left as it is.
public struct ShortSessionFit: Sendable {
    /// The session as it will play.
    public var session: Session
    /// Whether anything was changed.
    public var adapted: Bool
    /// What had to be left out, as warnings for the report (the rest of the fitting is as the
    /// README describes, and says nothing).
    public var notes: [String]

    /// The least settle and closing a fitted session keeps, when there is room for them.
    static let minimumSettle = SessionTime.seconds(2)
    static let minimumClosing = SessionTime.seconds(3)

    public init(session original: Session, total: SessionTime) {
        var session = original
        var notes: [String] = []
        let settle = original.settle, closing = original.closing
        let cap = SessionTime(milliseconds: total.milliseconds / 3)
        let firstCycle = original.segments.first?.shortestCycle ?? .zero
        var adapted = false

        if settle + closing > cap {
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
            for index in session.segments.indices {
                let cycle = session.segments[index].shortestCycle
                if index < session.segments.count - 1 {
                    session.segments[index].span = shrink(session.segments[index].span, cycle: cycle)
                }
                if var ramp = session.segments[index].ramp {
                    ramp.span = shrink(ramp.span, cycle: cycle) ?? ramp.span
                    session.segments[index].ramp = ramp
                }
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
            session.ambienceFadeIn = min(session.ambienceFadeIn, quarter)
            session.ambienceFadeOut = min(session.ambienceFadeOut, quarter)
            session.master.fadeIn = min(session.master.fadeIn, quarter)
            session.master.fadeOut = min(session.master.fadeOut, quarter)
            session.ambienceCrossfade = min(session.ambienceCrossfade, quarter)
        }
        self.session = session
        self.adapted = adapted
        self.notes = notes
    }
}

extension SessionTime {
    /// Seconds with up to three decimals and no trailing zeros: `20`, `7.5`, `0.333`.
    var secondsText: String {
        let whole = milliseconds / 1000, rest = milliseconds % 1000
        guard rest != 0 else { return "\(whole)" }
        var decimals = String(rest + 1000).dropFirst()
        while decimals.hasSuffix("0") { decimals = decimals.dropLast() }
        return "\(whole).\(decimals)"
    }
}
