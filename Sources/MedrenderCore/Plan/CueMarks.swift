/// One cue on the cue sheet.
public struct CueMark: Hashable, Sendable {
    public var kind: PhaseKind
    public var frame: Int64
    /// The exact time of the cue.
    public var time: SessionTime
    public var cycle: Int
    /// The phase's length.
    public var length: SessionTime
}

/// The cue sheet of a plan: one mark per phase start, in order, generated from the schedule.
///
/// The frames are the ones the renderer uses: both come from `SessionTime.frame(atRate:)`.
public struct CueMarks: Sequence, Sendable {
    let plan: RenderPlan

    public func makeIterator() -> AnyIterator<CueMark> {
        var phases = plan.schedule.makeIterator()
        let rate = plan.rate
        return AnyIterator {
            guard let phase = phases.next() else { return nil }
            return CueMark(
                kind: phase.kind, frame: phase.start.frame(atRate: rate), time: phase.start, cycle: phase.cycle,
                length: phase.length)
        }
    }
}
