/// Places the lines of a guided script on the clock, pure: no I/O, the lines' lengths given.
///
/// The script falls into runs. A run starts at a line placed by a time (`at`), a cue (`on`), a
/// part (`during`), or at the first line (from the start of the file); the lines after it flow,
/// each its pause after the one before and that one's rest. A run ends where the next run starts,
/// or at the end of its part (`during`), or of the session; its last line keeps its rest before
/// that end. Its spare time (what its lines and their fixed and minimum pauses and rests leave) is
/// shared among its elastic pauses and rests by weight, so a run with an elastic one fills it to
/// its end. A flowing line that would overlap a voice prompt or clip waits for it to end; a line
/// placed by a time or a cue that would overlap one is an error. Times are whole milliseconds and
/// become frames once, through `SessionTime`.
struct ScriptPlacer {
    let script: GuideScript
    let rate: Int
    let schedule: BreathSchedule
    let total: SessionTime
    /// Each line's length in frames at the output rate (0 when not known).
    let lengthFrames: [Int64]
    /// The frames other voice sounds (prompts, intro, outro, clips) take.
    let obstacles: [Range<Int64>]

    /// A span of frames as whole milliseconds that hold it: the start rounded down, the end up.
    private func milliseconds(_ frames: Range<Int64>) -> Range<Int64> {
        let lower = frames.lowerBound * 1000 / Int64(rate)
        return lower..<max(lower, SessionTime(covering: frames.upperBound, atRate: rate).milliseconds)
    }

    private func lengthMilliseconds(_ index: Int) -> Int64 {
        SessionTime(covering: lengthFrames[index], atRate: rate).milliseconds
    }

    private func partRange(_ part: SessionPart) -> (start: SessionTime, end: SessionTime) {
        switch part {
        case .settle: (.zero, schedule.start)
        case .breathing: (schedule.start, schedule.end)
        case .closing: (schedule.end, total)
        }
    }

    private func part(containing t: SessionTime) -> SessionPart {
        t < schedule.start ? .settle : t < schedule.end ? .breathing : .closing
    }

    private func placementError(_ index: Int, _ problem: String) -> PlanError {
        let line = script.lines[index]
        return .guideLinePlacement(line: index, location: line.location, text: line.text ?? line.sound?.name ?? "", problem: problem)
    }

    /// The start of the phase `kind` of cycle `cycle`.
    private func cue(cycle: Int, kind: PhaseKind, line index: Int) throws(PlanError) -> SessionTime {
        for phase in schedule {
            if phase.cycle > cycle { break }
            if phase.cycle == cycle, phase.kind == kind { return phase.start }
        }
        if cycle > schedule.cycleCount {
            throw placementError(index, "is on cycle \(cycle), but this session has \(schedule.cycleCount) cycles; "
                + "pick an earlier cycle or make the session longer")
        }
        throw placementError(index, "is on the \(kind.rawValue) of cycle \(cycle), which the pattern does not have there; "
            + "pick a phase it has")
    }

    /// Each line placed, in script order.
    func place() throws(PlanError) -> [PlacedLine] {
        let lines = script.lines
        guard !lines.isEmpty else { return [] }
        // Runs: where each starts, the time it starts from, and its part.
        var runs: [(first: Int, base: SessionTime, part: SessionPart, capped: Bool)] = []
        var currentPart = SessionPart.settle
        for (index, line) in lines.enumerated() where index == 0 || line.isAnchored {
            switch line.start {
            case .at(let t):
                currentPart = part(containing: t)
                runs.append((index, t, currentPart, false))
            case .on(let cycle, let kind):
                let t = try cue(cycle: cycle, kind: kind, line: index)
                currentPart = .breathing
                runs.append((index, t, currentPart, false))
            case .after, .elastic:
                if let during = line.during {
                    currentPart = during
                    runs.append((index, partRange(during).start, during, true))
                } else {
                    runs.append((index, .zero, .settle, false))
                }
            }
        }
        var placed: [PlacedLine] = []
        for (r, run) in runs.enumerated() {
            let last = r + 1 < runs.count ? runs[r + 1].first : lines.count
            var deadline = r + 1 < runs.count ? runs[r + 1].base : total
            if run.capped { deadline = min(deadline, partRange(run.part).end) }
            deadline = min(deadline, total)
            if run.base > deadline {
                let next = r + 1 < runs.count ? "the next placed line (guide line \(runs[r + 1].first + 1)) starts at \(deadline) s" : "the session ends at \(deadline) s"
                throw placementError(run.first, "starts at \(run.base) s, but \(next); lines play in the order written")
            }
            placed += try placeRun(run.first..<last, base: run.base, deadline: deadline)
        }
        return placed
    }

    /// A line's silence before it (its pause) or after it (its rest), in whole milliseconds: the
    /// least it lasts, and its weight when elastic.
    private typealias Silence = (minimum: Int64, weight: Double?)

    private func pause(_ index: Int) -> Silence {
        switch script.lines[index].start {
        case .after(let pause): (pause.milliseconds, nil)
        case .elastic(let minimum, let weight): (minimum.milliseconds, weight)
        case .at, .on: (0, nil)
        }
    }

    private func rest(_ index: Int) -> Silence {
        switch script.lines[index].rest {
        case .fixed(let rest): (rest.milliseconds, nil)
        case .elastic(let minimum, let weight): (minimum.milliseconds, weight)
        }
    }

    /// The slot of a line's pause (`2 × index`) or rest (`2 × index + 1`): slots run in time order.
    private static func slot(_ index: Int, rest: Bool) -> Int { 2 * index + (rest ? 1 : 0) }

    /// `spare` milliseconds shared among the elastic silences (slot and weight, in time order) by
    /// weight, each rounded down; what rounding leaves goes to the last.
    private static func shares(of spare: Int64, among elastic: [(slot: Int, weight: Double)]) -> [Int: Int64] {
        let weightSum = elastic.reduce(0) { $0 + $1.weight }
        var extra: [Int: Int64] = [:]
        var given: Int64 = 0
        for (slot, weight) in elastic {
            extra[slot] = weightSum > 0 ? Int64((Double(spare) * weight / weightSum).rounded(.down)) : 0
            given += extra[slot]!
        }
        if let last = elastic.last { extra[last.slot]! += spare - given }
        return extra
    }

    /// Where line `index` starts when it would start at `start`: after every voice prompt or clip
    /// it would overlap (a line placed by a time or a cue that would overlap one is an error).
    private func clear(_ index: Int, from start: Int64, of spans: [Range<Int64>]) throws(PlanError) -> Int64 {
        let length = lengthMilliseconds(index)
        guard length > 0 else { return start }
        var start = start
        for span in spans where span.lowerBound < start + length && start < span.upperBound {
            let place = "(\(SessionTime(milliseconds: span.lowerBound))–\(SessionTime(milliseconds: span.upperBound)) s)"
            if case .at = script.lines[index].start {
                throw placementError(index, "at \(SessionTime(milliseconds: start)) s would speak over a voice prompt or clip \(place); move it")
            }
            if case .on = script.lines[index].start {
                throw placementError(index, "on its cue would speak over a voice prompt or clip \(place); "
                    + "pick a cycle without prompts or lower 'voice.prompt-cycles'")
            }
            start = span.upperBound
        }
        return start
    }

    /// Lays out the lines of one run from `base`, so that the last, and its rest, end by `deadline`.
    private func placeRun(_ range: Range<Int>, base: SessionTime, deadline: SessionTime) throws(PlanError) -> [PlacedLine] {
        let lines = script.lines
        var fixed: Int64 = 0
        var elastic: [(slot: Int, weight: Double)] = []
        for index in range {
            fixed += lengthMilliseconds(index) + pause(index).minimum + rest(index).minimum
            if let weight = pause(index).weight { elastic.append((Self.slot(index, rest: false), weight)) }
            if let weight = rest(index).weight { elastic.append((Self.slot(index, rest: true), weight)) }
        }
        let spans = obstacles.map(milliseconds).filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var pushed: Int64 = 0
        var starts: [Int64] = []
        var end = base.milliseconds
        for _ in 0..<8 {
            let extra = Self.shares(of: max(0, deadline.milliseconds - base.milliseconds - fixed - pushed), among: elastic)
            starts = []
            var cursor = base.milliseconds
            var waited: Int64 = 0
            for index in range {
                let wanted = cursor + pause(index).minimum + extra[Self.slot(index, rest: false), default: 0]
                let start = try clear(index, from: wanted, of: spans)
                waited += start - wanted
                starts.append(start)
                cursor = start + lengthMilliseconds(index) + rest(index).minimum + extra[Self.slot(index, rest: true), default: 0]
            }
            end = cursor
            if waited == pushed { break }
            pushed = waited
        }
        if end > deadline.milliseconds {
            // The first line that ends after the deadline is the one that does not fit.
            let offender = range.first { starts[$0 - range.lowerBound] + lengthMilliseconds($0) > deadline.milliseconds } ?? range.last!
            let line = lines[offender]
            let missing = SessionTime(milliseconds: end - deadline.milliseconds)
            let need = SessionTime(milliseconds: end - base.milliseconds)
            throw PlanError.guideLineDoesNotFit(
                line: offender, location: line.location, text: line.text ?? line.sound?.name ?? "", missing: missing,
                reason: "the lines from guide line \(range.lowerBound + 1) to \(range.upperBound) need \(need) s "
                    + "from \(base) s but have \(deadline - base) s")
        }
        let totalFrames = total.frame(atRate: rate)
        return range.map { index in
            let startFrame = SessionTime(milliseconds: starts[index - range.lowerBound]).frame(atRate: rate)
            return PlacedLine(index: index, text: lines[index].text, sound: lines[index].sound, startFrame: startFrame,
                              endFrame: min(totalFrames, startFrame + lengthFrames[index]))
        }
    }
}
