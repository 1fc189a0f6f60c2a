import Foundation

extension RenderPlan {
    /// The clock: settle, whole cycles (the breathing ends on the last whole cycle that fits),
    /// closing; and the total length.
    static func clock(session: Session, options: RenderOptions) throws(PlanError) -> (BreathSchedule, SessionTime) {
        let schedule: BreathSchedule
        let total: SessionTime
        do {
            switch options.length {
            case .duration(let requested):
                if requested > Self.longestSession {
                    throw PlanError.tooLong(total: requested, limit: Self.longestSession)
                }
                let budget = requested - session.settle - session.closing
                let firstCycle = session.segments.first?.pattern.cycleLength ?? .zero
                if budget < firstCycle || budget <= .zero {
                    throw PlanError.tooShort(
                        total: requested, settle: session.settle, closing: session.closing, cycle: firstCycle)
                }
                schedule = try BreathSchedule(segments: session.segments, start: session.settle, length: .time(budget))
                total = requested
                // A chained segment that gets no time at all means the chain does not fit.
                if let index = schedule.cycleCounts.firstIndex(of: 0) {
                    let segment = session.segments[index]
                    throw PlanError.segmentDoesNotFit(
                        index: index, name: segment.name ?? segment.pattern.description,
                        before: schedule.segmentStarts[index] - session.settle, available: budget)
                }
            case .cycles(let n):
                schedule = try BreathSchedule(segments: session.segments, start: session.settle, length: .cycles(n))
                total = schedule.end + session.closing
                if total > Self.longestSession { throw PlanError.tooLong(total: total, limit: Self.longestSession) }
            }
        } catch let error as ScheduleError {
            throw .schedule(error)
        } catch let error as PlanError {
            throw error
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
        return (schedule, total)
    }

    /// The named points: settle, breathing, each chained segment that plays, closing.
    static func sections(session: Session, schedule: BreathSchedule, rate: Int) -> [SessionSection] {
        func frames(_ t: SessionTime) -> Int64 { t.frame(atRate: rate) }
        var sections = [
            SessionSection(.settle, name: "Settle", time: .zero, frame: 0),
            SessionSection(.breathing, name: "Breathing", time: schedule.start, frame: frames(schedule.start)),
        ]
        if session.segments.count > 1 {
            for (index, start) in schedule.segmentStarts.enumerated() where schedule.cycleCounts[index] > 0 {
                let segment = session.segments[index]
                sections.append(SessionSection(
                    .segment, name: segment.name ?? "Segment \(index + 1): \(segment.pattern)", time: start, frame: frames(start)))
            }
        }
        sections.append(SessionSection(.closing, name: "Closing", time: schedule.end, frame: frames(schedule.end)))
        // Two sections on one frame would be two chapters at one time: the later, more specific one
        // stays (a named first segment instead of "Breathing", "Breathing" instead of an empty settle).
        return sections.indices.filter { $0 == sections.count - 1 || sections[$0 + 1].frame != sections[$0].frame }.map { sections[$0] }
    }
}

/// The fit, a render's one stage between the session asked for and its plan: the session as it
/// will play at the length asked for. For a length in time, fitted to a length shorter than its
/// preset's (`ShortSessionFit`, kept for its notes and changes) and its spare time given out
/// (`SpareTime`); for a length in cycles, as it is. The sounds it may need (`soundsNamed`), its
/// outline (`PlanOutline`) and its plan (`RenderPlan.init(fitted:sounds:)`) all start from one
/// fit: a render fits once (`RenderJob.fit()`), whatever asks for its length first.
public struct FittedSession: Sendable {
    /// The session as it plays.
    public let session: Session
    public let options: RenderOptions
    /// How it was fitted to a shorter length; nil when it was not (a length in cycles or too long).
    let fit: ShortSessionFit?

    public init(_ original: Session, options: RenderOptions) {
        Self.tally?.add()
        self.options = options
        guard case .duration(let requested) = options.length, requested <= RenderPlan.longestSession else {
            session = original
            fit = nil
            return
        }
        let fit = ShortSessionFit(session: original, total: requested)
        self.fit = fit
        session = SpareTime.fill(fit.session, total: requested)
    }

    /// What fitting the session to a length shorter than its preset's changed, one line each.
    public var fitChanges: [String] { fit?.changes ?? [] }

    /// Counts the fits made in a task while it is set: what a test reads to see that a render
    /// fits once.
    @TaskLocal public static var tally: PlanTally?
}

/// What a plan of a session will be, known from its clock and its fit alone, without placing a
/// clip, loading a sound or making a plan: how long it lasts and what fitting it to a shorter
/// length changed. What the server says before it renders (its longest session, `Medrender-Fit`,
/// an episode's length); the render then plans once.
public struct PlanOutline: Sendable {
    /// The session's length, as the plan's clock gives it.
    public let total: SessionTime
    /// What fitting the session to a length shorter than its preset's changed, one line each.
    public let fitChanges: [String]

    public init(session: Session, options: RenderOptions) throws(PlanError) {
        try self.init(fitted: FittedSession(session, options: options))
    }

    public init(fitted: FittedSession) throws(PlanError) {
        total = try RenderPlan.clock(session: fitted.session, options: fitted.options).1
        fitChanges = fitted.fitChanges
    }

    /// The length in frames at `rate`, as the plan counts them.
    public func frames(atRate rate: Int) -> Int64 { total.frame(atRate: rate) }
}
