import MedrenderCore

/// A part of a session to render on its own (`start`/`end`, as `sox trim`): the frames from
/// `start` to `end` (the session's end when nil) of the whole render, at the whole session's
/// loudness, so that the part plays as it does in the whole. The master chain starts
/// `PointRender.warmUp` before the part, so its limiter has settled by then.
public struct SessionPart: Hashable, Sendable {
    public var start: SessionTime
    public var end: SessionTime?

    public init(start: SessionTime, end: SessionTime?) {
        self.start = start
        self.end = end
    }

    /// A part from `start` to `end` seconds (either may be nil: the session's start or end), or
    /// nil when neither is given; checked against each other (the session's length is checked
    /// once it is planned, by `frames(in:)`).
    public static func seconds(start: Double?, end: Double?) throws(ParameterError) -> SessionPart? {
        guard start != nil || end != nil else { return nil }
        try RequestLimits.partStart.check(start)
        try RequestLimits.partEnd.check(end)
        let from = SessionTime(seconds: start ?? 0)!
        let to = end.flatMap { SessionTime(seconds: $0) }
        if let to, !(from < to) {
            throw ParameterError("end", value: "\(end!)", "is not after {start} (\(from.seconds) s); give an end after the start")
        }
        return SessionPart(start: from, end: to)
    }

    /// The part's frames in `plan`; an error when it does not lie inside the session.
    func frames(in plan: RenderPlan) throws(ParameterError) -> Range<Int64> {
        let total = plan.total.seconds
        let first = start.frame(atRate: plan.rate)
        let last = end.map { $0.frame(atRate: plan.rate) } ?? plan.totalFrames
        guard first < plan.totalFrames else {
            throw ParameterError("start", value: "\(start.seconds)", "is not inside the session, which lasts \(total) s; give a start before its end")
        }
        guard last <= plan.totalFrames else {
            throw ParameterError("end", value: "\(end!.seconds)", "is past the session's end, \(total) s; give an end up to it, or none")
        }
        return first..<last
    }
}

extension OutputTags {
    /// The tags of the part `frames` (from `start`) of the session: its chapters from the one
    /// under way at the part's start (which then starts the part), each moved to the part's time.
    func within(_ frames: Range<Int64>, start: SessionTime) -> OutputTags {
        var tags = self
        let under = chapters.last { $0.frame <= frames.lowerBound }
        tags.chapters = chapters.filter { $0.frame > frames.lowerBound && $0.frame < frames.upperBound }.map {
            SessionSection($0.kind, name: $0.name, time: $0.time - start, frame: $0.frame - frames.lowerBound)
        }
        if let under { tags.chapters.insert(SessionSection(under.kind, name: under.name, time: .seconds(0), frame: 0), at: 0) }
        return tags
    }
}

/// As a request's part is written where the request is (in milliseconds).
extension SessionPart: Codable {
    private enum CodingKeys: String, CodingKey { case startMilliseconds, endMilliseconds }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        start = SessionTime(milliseconds: try c.decode(Int64.self, forKey: .startMilliseconds))
        end = try c.decodeIfPresent(Int64.self, forKey: .endMilliseconds).map(SessionTime.init(milliseconds:))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start.milliseconds, forKey: .startMilliseconds)
        try c.encodeIfPresent(end?.milliseconds, forKey: .endMilliseconds)
    }
}
