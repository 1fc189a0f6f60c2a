/// One phase of one breath cycle, placed on the session clock.
public struct ScheduledPhase: Hashable, Sendable {
    public var kind: PhaseKind
    /// The cycle this phase belongs to, from 1.
    public var cycle: Int
    /// The segment this phase belongs to, from 0.
    public var segment: Int
    public var start: SessionTime
    public var length: SessionTime
    public var end: SessionTime { start + length }
}

/// Why a schedule cannot be made.
public enum ScheduleError: Error, Hashable, Sendable {
    /// A pattern whose cycle has no length.
    case emptyCycle(segment: Int)
    /// Not even one cycle fits in the time the session leaves for breathing.
    case noCycleFits(cycle: SessionTime, available: SessionTime)
    /// More cycles than a schedule may hold.
    case tooManyCycles(Int)
}

/// The exact breath schedule of a session: whole cycles from `start`, segment after segment.
///
/// It stores only how many cycles each segment plays; phases are generated on demand, in order,
/// so a schedule of any length takes the same memory. Every boundary is an exact millisecond sum.
public struct BreathSchedule: Sequence, Hashable, Sendable {
    public let segments: [PatternSegment]
    /// How many cycles each segment plays.
    public let cycleCounts: [Int]
    /// When the first breath starts.
    public let start: SessionTime
    /// When the last breath ends: the start of the closing.
    public let end: SessionTime
    /// When each segment starts.
    public let segmentStarts: [SessionTime]

    /// The upper bound on cycles in one schedule (a day of one-second cycles is 86,400).
    public static let maximumCycles = 1_000_000

    public var cycleCount: Int { cycleCounts.reduce(0, +) }
    public var length: SessionTime { end - start }

    /// Lays out `segments` from `start`, either filling `available` time with whole cycles or
    /// playing exactly `cycles` cycles.
    ///
    /// A segment with a span plays up to its span; the segment without one takes what is left.
    /// With a time budget, no cycle is cut: the schedule ends on the last whole cycle that fits.
    public init(segments: [PatternSegment], start: SessionTime, length: SessionLengthBudget) throws {
        for (index, segment) in segments.enumerated() where segment.shortestCycle <= .zero {
            throw ScheduleError.emptyCycle(segment: index)
        }
        var counts: [Int] = []
        var starts: [SessionTime] = []
        var now = start
        var totalCycles = 0
        for (index, segment) in segments.enumerated() {
            starts.append(now)
            let segmentStart = now
            var count = 0
            while true {
                let remainingCycles: Int?
                switch length {
                case .cycles(let n): remainingCycles = n - totalCycles
                case .time: remainingCycles = nil
                }
                if let remainingCycles, remainingCycles <= 0 { break }
                if case .cycles(let n)? = segment.span, count >= n { break }
                let cycle = segment.pattern(cycle: count, elapsed: now - segmentStart).cycleLength
                if case .duration(let d)? = segment.span, now - segmentStart + cycle > d { break }
                if case .time(let budget) = length, now - start + cycle > budget { break }
                if cycle <= .zero { throw ScheduleError.emptyCycle(segment: index) }
                now += cycle
                count += 1
                totalCycles += 1
                if totalCycles > Self.maximumCycles { throw ScheduleError.tooManyCycles(totalCycles) }
            }
            counts.append(count)
        }
        if totalCycles == 0 {
            let first = segments.first?.pattern.cycleLength ?? .zero
            switch length {
            case .time(let budget): throw ScheduleError.noCycleFits(cycle: first, available: budget)
            case .cycles: break
            }
        }
        self.segments = segments
        self.cycleCounts = counts
        self.start = start
        self.end = now
        self.segmentStarts = starts
    }

    public func makeIterator() -> Iterator { Iterator(schedule: self) }

    /// Generates the phases in playing order.
    public struct Iterator: IteratorProtocol {
        let schedule: BreathSchedule
        var segment = 0
        var cycleInSegment = 0
        var cycle = 0
        var segmentStart: SessionTime
        var cycleStart: SessionTime
        var pending: [(kind: PhaseKind, length: SessionTime)] = []
        var pendingIndex = 0
        var phaseStart: SessionTime

        init(schedule: BreathSchedule) {
            self.schedule = schedule
            self.segmentStart = schedule.start
            self.cycleStart = schedule.start
            self.phaseStart = schedule.start
        }

        public mutating func next() -> ScheduledPhase? {
            while pendingIndex >= pending.count {
                while segment < schedule.segments.count, cycleInSegment >= schedule.cycleCounts[segment] {
                    segment += 1
                    cycleInSegment = 0
                    segmentStart = cycleStart
                }
                guard segment < schedule.segments.count else { return nil }
                let pattern = schedule.segments[segment].pattern(
                    cycle: cycleInSegment, elapsed: cycleStart - segmentStart)
                pending = pattern.phases
                pendingIndex = 0
                phaseStart = cycleStart
                cycleStart += pattern.cycleLength
                cycleInSegment += 1
                cycle += 1
            }
            let (kind, length) = pending[pendingIndex]
            pendingIndex += 1
            let phase = ScheduledPhase(kind: kind, cycle: cycle, segment: segment, start: phaseStart, length: length)
            phaseStart += length
            return phase
        }
    }
}

/// The time the breathing section may take, or the cycles it must play.
public enum SessionLengthBudget: Hashable, Sendable {
    case time(SessionTime)
    case cycles(Int)
}
