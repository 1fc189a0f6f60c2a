extension PlanError: CustomStringConvertible {
    /// What is wrong and how to fix it, in one line.
    public var description: String {
        switch self {
        case .schedule(.emptyCycle(let segment)):
            return "the pattern of segment \(segment + 1) has no length; give at least an inhale and an exhale"
        case .schedule(.noCycleFits(let cycle, let available)):
            return "a \(cycle) s breath cycle does not fit in the \(available) s left for breathing; make the session longer"
        case .schedule(.tooManyCycles(let n)):
            return "the session would have more than \(n - 1) cycles; make it shorter or the cycles longer"
        case .tooShort(let total, let settle, let closing, let cycle):
            let least = settle + closing + cycle
            return "a session of \(total) s is too short for settle (\(settle) s) + one cycle (\(cycle) s) + closing (\(closing) s); "
                + "make it at least \(least) s (\(minutesText(least)) min)"
        case .clipDoesNotFit(let role, let sound, let clip, let available, let field):
            let room = available > .zero
                ? "only \(available) s are left for it" : "it would start \(.zero - available) s after the \(field) ends"
            return "the \(role) '\(sound)' lasts \(clip) s but \(room); "
                + "make '\(field)' longer by \(clip - available) s, start it earlier, or use a shorter clip"
        case .clipAfterEnd(let sound, let clip, let at, let total):
            let fix = total > clip ? "start it at \(total - clip) s at the latest" : "use a shorter clip"
            return "the voice clip '\(sound)' (\(clip) s) at \(at) s would end after the session's \(total) s; "
                + "\(fix) or make the session longer"
        case .trackTooLong(let sound, let track, let available):
            return "the guided track '\(sound)' lasts \(track) s but the session leaves it \(available) s, "
                + "\(track - available) s too few; make the session at least that much longer or start the track earlier"
        case .promptLongerThanPhase(let sound, let prompt, let phase, let length, let cycle):
            return "the prompt '\(sound)' lasts \(prompt) s, longer than the \(phase.rawValue) phase (\(length) s) "
                + "of cycle \(cycle); use a shorter prompt or a longer \(phase.rawValue)"
        case .bedsOverlap(let sound, let at, let crossfade, let total):
            return "the bed '\(sound)' takes over at \(at) s, leaving no room for the \(crossfade) s crossfades "
                + "in a \(total) s session; move its start point or shorten 'ambience.crossfade'"
        case .segmentDoesNotFit(let index, let name, let before, let available):
            return "segment \(index + 1) (\(name)) gets no time: the segments before it take \(before) s of the "
                + "\(available) s left for breathing; make the session longer or the segments before it shorter"
        case .fadesLongerThanSession(let fadeIn, let fadeOut, let total):
            return "the master fade-in (\(fadeIn) s) and fade-out (\(fadeOut) s) last longer than the \(total) s session; "
                + "shorten 'master.fade-in' or 'master.fade-out', or make the session longer"
        case .guideLineDoesNotFit(let line, let location, let text, let missing, let reason):
            return "\(Self.lineName(line, location, text)) does not fit: \(reason), \(missing) s missing; "
                + "make the session longer (or use {minutes=}fit), shorten the pauses and rests around it or its text"
        case .guideLinePlacement(let line, let location, let text, let problem):
            return "\(Self.lineName(line, location, text)) \(problem)"
        case .beats(let error):
            return error.description
        case .tooLong(let total, let limit):
            return "a session of \(total) s is longer than the \(limit) s (24 h) medrender renders; make it shorter"
        }
    }

    /// `guide line 3 ("Let the shoulders…", preset.yaml:12:7)`.
    static func lineName(_ line: Int, _ location: ScriptLocation?, _ text: String) -> String {
        let excerpt = text.count > 32 ? String(text.prefix(30)) + "…" : text
        return "guide line \(line + 1) (\(excerpt.isEmpty ? "" : "\"\(excerpt)\", ")\(location.map(\.description) ?? "no location"))"
    }

    private func minutesText(_ t: SessionTime) -> String {
        let minutes = Double(t.milliseconds) / 60000
        return String((minutes * 100).rounded(.up) / 100)
    }
}
