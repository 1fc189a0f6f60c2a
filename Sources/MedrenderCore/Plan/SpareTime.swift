/// Where the time goes that segments which all have a length leave over (`fill:`).
///
/// A session timed in minutes whose last segment has a length of its own would otherwise give
/// whatever is left after it to the closing; `fill` says so, or says to breathe it.
enum SpareTime {
    /// `session` with its segments as `session.fill` has them fill a `total`-long session.
    static func fill(_ session: Session, total: SessionTime) -> Session {
        guard let last = session.segments.indices.last, session.segments[last].span != nil else { return session }
        var session = session
        switch session.fill {
        case nil, .closing?:
            break
        case .lastSegment?:
            session.segments[last].span = nil
        case .breathing?:
            let budget = total - session.settle - session.closing
            let nominal = session.segments.reduce(SessionTime.zero) { $0 + length(of: $1) }
            if nominal > .zero, budget > nominal {
                let k = Double(budget.milliseconds) / Double(nominal.milliseconds)
                func stretch(_ span: SegmentSpan) -> SegmentSpan {
                    switch span {
                    case .duration(let d): .duration(SessionTime(milliseconds: Int64((Double(d.milliseconds) * k).rounded(.down))))
                    case .cycles(let n): .cycles(Int((Double(n) * k).rounded(.down)))
                    }
                }
                for index in session.segments.indices {
                    if let span = session.segments[index].span { session.segments[index].span = stretch(span) }
                    if var ramp = session.segments[index].ramp {
                        ramp.span = stretch(ramp.span)
                        session.segments[index].ramp = ramp
                    }
                }
            }
            // The last segment takes what rounding leaves, so the breathing reaches the closing.
            session.segments[last].span = nil
        }
        return session
    }

    /// The time a segment's span takes: its duration, or its cycles at the pattern's length.
    static func length(of segment: PatternSegment) -> SessionTime {
        switch segment.span {
        case .duration(let d)?: d
        case .cycles(let n)?: segment.pattern.cycleLength * Int64(n)
        case nil: .zero
        }
    }

    /// The warning for a closing that grew by a cycle or more because the last segment has a length
    /// and the preset does not say where the spare time goes; nil otherwise.
    static func implicitNote(session: Session, schedule: BreathSchedule, total: SessionTime) -> String? {
        guard session.fill == nil, let last = session.segments.last, last.span != nil else { return nil }
        let closing = total - schedule.end
        let spare = closing - session.closing
        guard spare >= last.shortestCycle else { return nil }
        let name = last.name.map { "'\($0)'" } ?? "segment \(session.segments.count)"
        return "the last segment (\(name)) has a length, so the \(spare.secondsText) s after it go to the closing "
            + "(\(closing.secondsText) s instead of \(session.closing.secondsText) s); say 'fill: closing' to keep it so, "
            + "'fill: last-segment' or 'fill: breathing' to breathe that time"
    }
}
