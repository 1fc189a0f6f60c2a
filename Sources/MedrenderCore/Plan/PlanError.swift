/// Why a session cannot be planned; each case carries what a message needs.
public enum PlanError: Error, Hashable, Sendable {
    case schedule(ScheduleError)
    /// The session is too short for settle + one cycle + closing.
    case tooShort(total: SessionTime, settle: SessionTime, closing: SessionTime, cycle: SessionTime)
    /// A clip does not fit where it must play.
    case clipDoesNotFit(role: String, sound: SoundRef, clip: SessionTime, available: SessionTime, field: String)
    /// A voice clip at a set time that would end after the session.
    case clipAfterEnd(sound: SoundRef, clip: SessionTime, at: SessionTime, total: SessionTime)
    /// More than the longest session.
    case tooLong(total: SessionTime, limit: SessionTime)
    /// The master fade-in and fade-out together last longer than the session.
    case fadesLongerThanSession(fadeIn: SessionTime, fadeOut: SessionTime, total: SessionTime)
    /// A guided track longer than the time it has.
    case trackTooLong(sound: SoundRef, track: SessionTime, available: SessionTime)
    /// A prompt that would ring past the end of its phase.
    case promptLongerThanPhase(sound: SoundRef, prompt: SessionTime, phase: PhaseKind, length: SessionTime, cycle: Int)
    /// A chained segment that the segments before it leave no time for.
    case segmentDoesNotFit(index: Int, name: String, before: SessionTime, available: SessionTime)
    /// A bed's start point that leaves no room for the crossfades around it.
    case bedsOverlap(sound: SoundRef, at: SessionTime, crossfade: SessionTime, total: SessionTime)
    /// A line of the guided script that does not fit the time it is given (`missing` more needed).
    case guideLineDoesNotFit(line: Int, location: ScriptLocation?, text: String, missing: SessionTime, reason: String)
    /// A line of the guided script placed where it cannot be (a cycle past the end, over a prompt).
    case guideLinePlacement(line: Int, location: ScriptLocation?, text: String, problem: String)
    /// Beats that cannot be placed (BeatPlan.swift).
    case beats(BeatError)
}
