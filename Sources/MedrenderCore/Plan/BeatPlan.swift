import Foundation

/// The beats placed on the clock: the carrier, half the beat and the gain, each a curve over the
/// session's frames whose phase is known at any frame (`PiecewiseCurve`).
public struct BeatPlan: Hashable, Sendable {
    public let kind: Beats.Kind
    /// The carrier, in hertz.
    public let carrier: PiecewiseCurve
    /// Half the beat frequency, in hertz: the left ear hears carrier − this, the right carrier + this.
    public let halfBeat: PiecewiseCurve
    /// The gain, in decibels.
    public let gainDecibels: PiecewiseCurve
    /// The beats fade in from the first frame and out to the last, with the ambience's fades.
    public let fadeInFrames: Int64
    public let fadeOutFrames: Int64
    public let totalFrames: Int64

    /// The beat frequency at `frame`, in hertz.
    public func beatHertz(at frame: Int64) -> Double { 2 * halfBeat.value(at: frame) }
    /// The tone the left ear hears at `frame` (binaural; the lower of a monaural pair), in hertz.
    public func leftHertz(at frame: Int64) -> Double { carrier.value(at: frame) - halfBeat.value(at: frame) }
    /// The tone the right ear hears at `frame` (binaural; the upper of a monaural pair), in hertz.
    public func rightHertz(at frame: Int64) -> Double { carrier.value(at: frame) + halfBeat.value(at: frame) }

    /// Places `beats` on the clock of a session of `total` whose breathing is `schedule`.
    public init(_ beats: Beats, schedule: BreathSchedule, total: SessionTime, rate: Int,
                fadeIn: SessionTime, fadeOut: SessionTime) throws(PlanError) {
        func frames(_ t: SessionTime) -> Int64 { t.frame(atRate: rate) }
        kind = beats.kind
        var placed: [(frame: Int64, point: BeatPoint)] = []
        for (index, point) in beats.points.enumerated() {
            let time: SessionTime
            switch point.at {
            case .time(let t): time = t
            case .breathing: time = schedule.start
            case .closing: time = schedule.end
            case .end: time = total
            case .segment(let n):
                guard n >= 1, n <= schedule.segmentStarts.count else {
                    throw .beats(.noSuchSegment(point: index, location: point.location, segment: n, count: schedule.segmentStarts.count))
                }
                time = schedule.segmentStarts[n - 1]
            }
            if time > total {
                throw .beats(.pointOutsideSession(point: index, location: point.location, at: time, total: total))
            }
            if let last = placed.last, frames(time) < last.frame {
                throw .beats(.pointsOutOfOrder(point: index, location: point.location, at: time,
                                               previous: SessionTime(milliseconds: last.frame * 1000 / Int64(rate))))
            }
            placed.append((frames(time), point))
        }
        carrier = PiecewiseCurve(knots: placed.map { ($0.frame, $0.point.carrierHertz, $0.point.curve) }, rate: rate)
        gainDecibels = PiecewiseCurve(knots: placed.map { ($0.frame, $0.point.gainDecibels, $0.point.curve) }, rate: rate)
        if let follow = beats.follow {
            // The beat rises through each inhale and falls through each exhale, phase by phase.
            let low = follow.lowHertz / 2, high = follow.highHertz / 2
            var knots: [(frame: Int64, value: Double, curve: FadeCurve)] = [(0, low, .linear)]
            var level = low
            for phase in schedule {
                let start = frames(phase.start), end = frames(phase.end)
                if start > knots[knots.count - 1].frame { knots.append((start, level, .linear)) }
                switch phase.kind {
                case .inhale, .topUp: level = high
                case .exhale: level = low
                case .holdIn, .holdOut: break
                }
                knots.append((end, level, follow.curve))
            }
            halfBeat = PiecewiseCurve(knots: knots, rate: rate)
        } else {
            halfBeat = PiecewiseCurve(knots: placed.map { ($0.frame, $0.point.beatHertz / 2, $0.point.curve) }, rate: rate)
        }
        totalFrames = frames(total)
        fadeInFrames = min(frames(fadeIn), totalFrames / 2)
        fadeOutFrames = min(frames(fadeOut), totalFrames / 2)
    }
}

/// Why beats cannot be placed.
public enum BeatError: Error, Hashable, Sendable {
    /// A timeline point after the end of the session.
    case pointOutsideSession(point: Int, location: ScriptLocation?, at: SessionTime, total: SessionTime)
    /// A timeline point before the one written above it.
    case pointsOutOfOrder(point: Int, location: ScriptLocation?, at: SessionTime, previous: SessionTime)
    /// `at: segment N` in a session with fewer segments.
    case noSuchSegment(point: Int, location: ScriptLocation?, segment: Int, count: Int)
    /// Binaural beats asked of a mono output.
    case binauralNeedsStereo

    func place(_ point: Int, _ location: ScriptLocation?) -> String {
        "beats timeline point \(point)" + (location.map { " (\($0))" } ?? "")
    }
}

extension BeatError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .pointOutsideSession(let point, let location, let at, let total):
            return "\(location.map { "\($0): " } ?? "")\(place(point, nil)) at \(at) s is after the end of the \(total) s session; "
                + "move it to at most \(total) s (or 'at: end') or make the session longer"
        case .pointsOutOfOrder(let point, let location, let at, let previous):
            return "\(location.map { "\($0): " } ?? "")\(place(point, nil)) at \(at) s comes before the point above it (\(previous) s); "
                + "list the points in time order"
        case .noSuchSegment(let point, let location, let segment, let count):
            return "\(location.map { "\($0): " } ?? "")\(place(point, nil)) is at segment \(segment) but the session has "
                + "\(count) segment\(count == 1 ? "" : "s"); use 1…\(count)"
        case .binauralNeedsStereo:
            return "binaural beats need two channels (a different tone in each ear) but the output is mono; "
                + "render in stereo ({channels=}2) or use 'kind: monaural' or 'kind: isochronic'"
        }
    }
}

extension RenderPlan {
    /// The layers that get a stem: those mixed, less the beats layer of a session without beats
    /// (a silent file would only be in the way).
    public var stemLayers: Set<Layer> {
        beats == nil ? layers.subtracting([.beats]) : layers
    }
}
