/// Places the lines of a guided script on the clock, pure: no I/O, the lines' lengths given.
///
/// The script falls into runs. A run starts at a line placed by a time (`at`), a cue (`on`), a
/// part (`during`), or at the first line (from the start of the file); the lines after it flow,
/// each its pause after the one before. A run ends where the next run starts, or at the end of
/// its part (`during`), or of the session. Its spare time (what its lines and their fixed and
/// minimum pauses leave) is shared among its elastic pauses by weight, so the last line of a run
/// with an elastic pause ends on the run's end. A flowing line that would overlap a voice prompt
/// or clip waits for it to end; a line placed by a time or a cue that would overlap one is an
/// error. Times are whole milliseconds and become frames once, through `SessionTime`.
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

    /// Lays out the lines of one run from `base`, so that the last ends by `deadline`.
    private func placeRun(_ range: Range<Int>, base: SessionTime, deadline: SessionTime) throws(PlanError) -> [PlacedLine] {
        let lines = script.lines
        var fixed: Int64 = 0
        var weights: [Int: Double] = [:]
        for index in range {
            fixed += lengthMilliseconds(index)
            switch lines[index].start {
            case .after(let pause): fixed += pause.milliseconds
            case .elastic(let minimum, let weight):
                fixed += minimum.milliseconds
                weights[index] = weight
            case .at, .on: break
            }
        }
        let weightSum = weights.values.reduce(0, +)
        let spans = obstacles.map(milliseconds).filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var pushed: Int64 = 0
        var starts: [Int64] = []
        var end = base.milliseconds
        for _ in 0..<8 {
            let spare = max(0, deadline.milliseconds - base.milliseconds - fixed - pushed)
            // The spare milliseconds by weight, rounded down; what rounding leaves goes to the last.
            var extra: [Int: Int64] = [:]
            var given: Int64 = 0
            for (index, weight) in weights {
                extra[index] = weightSum > 0 ? Int64((Double(spare) * weight / weightSum).rounded(.down)) : 0
                given += extra[index]!
            }
            if let lastElastic = weights.keys.max() { extra[lastElastic]! += spare - given }
            starts = []
            var cursor = base.milliseconds
            var waited: Int64 = 0
            for index in range {
                var start: Int64
                switch lines[index].start {
                case .at, .on: start = cursor
                case .after(let pause): start = cursor + pause.milliseconds
                case .elastic(let minimum, _): start = cursor + minimum.milliseconds + extra[index]!
                }
                let length = lengthMilliseconds(index)
                if length > 0 {
                    for span in spans where span.lowerBound < start + length && start < span.upperBound {
                        if case .at = lines[index].start {
                            throw placementError(index, "at \(SessionTime(milliseconds: start)) s would speak over a voice prompt or clip "
                                + "(\(SessionTime(milliseconds: span.lowerBound))–\(SessionTime(milliseconds: span.upperBound)) s); move it")
                        }
                        if case .on = lines[index].start {
                            throw placementError(index, "on its cue would speak over a voice prompt or clip "
                                + "(\(SessionTime(milliseconds: span.lowerBound))–\(SessionTime(milliseconds: span.upperBound)) s); "
                                + "pick a cycle without prompts or lower 'voice.prompt-cycles'")
                        }
                        waited += span.upperBound - start
                        start = span.upperBound
                    }
                }
                starts.append(start)
                cursor = start + length
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
