import Foundation
import Synchronization

/// Everything of a session placed on one clock, in integer frames at the output rate.
///
/// Planning is pure: it takes the lengths of the sounds (at the output rate) and does no I/O.
public struct RenderPlan: Sendable {
    public let rate: Int
    public let channels: Int
    public let totalFrames: Int64
    public let total: SessionTime
    public private(set) var layers: Set<Layer>
    /// Whether this plan mixes layers apart from the whole mix (`restricted(to:)`: a stem, the
    /// voice measured alone), as the mixers' tally counts them (`MixTally`).
    public private(set) var isLayersApart = false
    public let schedule: BreathSchedule
    public let sections: [SessionSection]
    /// Bells and voice clips, in start order. Cues are generated from the schedule as they play.
    public private(set) var clips: [ClipEvent]
    public private(set) var beds: [BedEvent]
    /// The cue for each phase kind that has one (and only when the cues layer is on).
    public private(set) var cues: [CuePlan]
    /// The segments that play cues of their own (`CuePlan.segment`) instead of the session's.
    public let ownCueSegments: Set<Int>
    public let master: MasterPlan
    public let seed: UInt64
    /// How the ambience dips under the voice.
    public let ducking: DuckPlan
    /// How a bell dips under the voice (`ClipPlacer.bellDucking`).
    public let bellDucking: DuckPlan
    /// The phase kinds that have a voice prompt, and for how many cycles: their cues play
    /// `cueUnderPromptGain` lower, so the prompt is heard over them.
    public let promptedKinds: Set<PhaseKind>
    public let promptedCycles: Int
    /// Linear gain of a cue while its phase's prompt speaks.
    public let cueUnderPromptGain: Float
    /// Voice sounds the plan does not play but whose lengths shape the other layers (the ducking,
    /// the end bell after the outro).
    private(set) var unmixedSoundsNeeded: [SoundRef]
    /// Metronome ticks through the phases, when the cues layer has one.
    public private(set) var metronome: Metronome?
    /// The breath swell, when the cues layer has one.
    public private(set) var swell: BreathSwell?
    /// The beats (`beats:`), when the session has them and the beats layer is mixed.
    public private(set) var beats: BeatPlan?
    /// How the session was fitted to a length shorter than its preset's, and what was left out:
    /// warnings for the report.
    public let notes: [String]
    /// What fitting the session to a length shorter than its preset's changed, one line each
    /// (empty at the preset's length and longer).
    public let fitChanges: [String]
    /// Each sound's length in frames at the output rate (empty for a plan made without them).
    public let soundFrameCounts: [SoundRef: Int64]
    /// The guided script's lines as placed, and the language of the words (guide: GuideScript.swift).
    public let guide: GuidePlan

    /// The longest session medrender renders: 24 hours (`SessionLimits.mostMinutes`).
    public static let longestSession = SessionTime.seconds(Int64(SessionLimits.mostMinutes) * 60)
    /// Cues are cut with a release of this length (or half the phase, when shorter).
    public static let cueRelease = SessionTime(milliseconds: 20)

    /// Every sound file the plan plays, each once.
    public var soundsUsed: [SoundRef] {
        var seen: [SoundRef] = []
        for ref in clips.compactMap({ if case .file(let r) = $0.sound { r } else { nil } })
            + beds.filter({ $0.generator == nil }).map(\.sound) + unmixedSoundsNeeded
            + cues.compactMap({ if case .sound(let r) = $0.sound.source { r } else { nil } })
        where !seen.contains(ref) { seen.append(ref) }
        return seen
    }

    /// Every sound file a plan of `session` with `options` may play, or measure without mixing,
    /// each once, in the session's order: found without planning, so that a render finds and
    /// decodes its sounds first and plans once, with their lengths. They are the sounds the
    /// session names once fitted to the length (`ShortSessionFit`), of the layers mixed, with the
    /// voice's also when the ambience or the bells are mixed (they duck under it, and the end bell
    /// waits for the outro). A plan plays these or fewer (`soundsUsed`): a clip timed past the end,
    /// or a segment that does not play, is found and decoded though the plan leaves it out.
    public static func soundsNamed(session original: Session, options: RenderOptions) -> [SoundRef] {
        soundsNamed(FittedSession(original, options: options))
    }

    /// `soundsNamed(session:options:)` of a session already fitted.
    public static func soundsNamed(_ fitted: FittedSession) -> [SoundRef] {
        let session = fitted.session
        let layers = fitted.options.layers
        var kept = Set<SoundRef>()
        if layers.contains(.bells) { kept.formUnion([session.bells.start, session.bells.end, session.bells.interval].compactMap { $0 }) }
        if layers.contains(.voice) || layers.contains(.ambience) || layers.contains(.bells) {
            // With a line's clip, or its speech once synthesized (or cut from a take): known before
            // planning, so that the lines are placed with their lengths from the first plan.
            kept.formUnion(session.voiceSounds)
        }
        if layers.contains(.ambience) {
            kept.formUnion(session.ambience.filter { $0.generator == nil }.map(\.sound) + session.segments.compactMap { $0.ambience?.generator == nil ? $0.ambience?.sound : nil })
        }
        if layers.contains(.cues) {
            for kind in PhaseKind.allCases {
                if case .sound(let ref)? = session.cues[kind]?.source { kept.insert(ref) }
                for segment in session.segments { if case .sound(let ref)? = segment.cues[kind]??.source { kept.insert(ref) } }
            }
        }
        let named = session.soundsUsed.filter(kept.contains)
        let spoken = (session.guide?.lines ?? []).compactMap { line -> SoundRef? in
            guard case .say = line.content, let ref = line.speech, kept.contains(ref) else { return nil }
            return ref
        }
        return named + spoken.filter { !named.contains($0) }
    }

    /// The cue sheet: every cue's kind, frame, time and cycle, in order.
    public var cueMarks: CueMarks { CueMarks(plan: self) }

    /// Only the schedule and the clock: enough for a cue sheet, with no sound lengths needed.
    public init(session: Session, options: RenderOptions) throws(PlanError) {
        try self.init(session: session, options: options, sounds: nil)
    }

    /// Plans `session`; `sounds` gives each sound's length at the output rate and its loudness.
    public init(session: Session, options: RenderOptions, sounds: [SoundRef: SoundFacts]?) throws(PlanError) {
        try self.init(fitted: FittedSession(session, options: options), sounds: sounds)
    }

    /// Plans a fitted session (a session shorter than its preset was written for adapts:
    /// `FittedSession`); `sounds` gives each sound's length at the output rate and its loudness.
    public init(fitted stage: FittedSession, sounds: [SoundRef: SoundFacts]?) throws(PlanError) {
        Self.tally?.add()
        let session = stage.session, options = stage.options, fit = stage.fit
        let rate = options.rate
        var notes = fit?.notes ?? []
        let fitChanges = fit?.changes ?? []
        let fitted = fit?.adapted ?? false
        func frames(_ t: SessionTime) -> Int64 { t.frame(atRate: rate) }
        let (schedule, total) = try Self.clock(session: session, options: options)
        if case .duration = options.length, let note = SpareTime.implicitNote(session: session, schedule: schedule, total: total) {
            notes.append(note)
        }
        let totalFrames = frames(total)
        if session.master.fadeIn + session.master.fadeOut > total {
            throw .fadesLongerThanSession(fadeIn: session.master.fadeIn, fadeOut: session.master.fadeOut, total: total)
        }
        let sections = Self.sections(session: session, schedule: schedule, rate: rate)
        var placer = ClipPlacer(session: session, options: options, sounds: sounds, schedule: schedule, total: total, fitted: fitted)
        try placer.place()
        self.notes = notes + placer.notes
        self.fitChanges = fitChanges
        let clips = placer.clips, voiceClips = placer.voiceClips
        let beds = try Self.beds(session: session, options: options, sounds: sounds, total: total, schedule: schedule)
        let ducking = placer.ducking(fadeIn: beds.first.map { $0.startFrame..<($0.startFrame + $0.fadeInFrames) })
        let layers = options.layers
        let voice = session.voice, bells = session.bells
        // Beats are placed (and checked) whatever the layers, so an error shows in every render.
        let beats = try session.beats.map { (b) throws(PlanError) in
            try BeatPlan(b, schedule: schedule, total: total, rate: rate, fadeIn: session.ambienceFadeIn, fadeOut: session.ambienceFadeOut)
        }
        if let beats, beats.kind == .binaural, options.channels == 1, layers.contains(.beats) { throw .beats(.binauralNeedsStereo) }

        var cues: [CuePlan] = []
        var ownCueSegments = Set<Int>()
        if layers.contains(.cues) {
            for kind in PhaseKind.allCases {
                if let sound = session.cues[kind] {
                    cues.append(CuePlan(kind: kind, sound: sound, lengthFrames: frames(sound.soundingLength)))
                }
            }
            // A segment with cues of its own: the session's, with the kinds it lists replaced.
            for (index, segment) in session.segments.enumerated() where !segment.cues.isEmpty {
                ownCueSegments.insert(index)
                for kind in PhaseKind.allCases {
                    let own = segment.cues[kind]
                    if let sound = own == nil ? session.cues[kind] : own! {
                        cues.append(CuePlan(kind: kind, sound: sound, lengthFrames: frames(sound.soundingLength), segment: index))
                    }
                }
            }
        }
        if !voiceClips.isEmpty { cues = cues.map { $0.levelled(under: voice.levelLUFS, rate: rate, sounds: sounds) } }
        self.ownCueSegments = ownCueSegments

        self.rate = rate
        self.channels = options.channels
        self.total = total
        self.totalFrames = totalFrames
        self.layers = layers
        self.schedule = schedule
        self.sections = sections
        self.clips = clips
        self.beds = beds
        self.cues = cues
        self.ducking = ducking
        self.bellDucking = placer.bellDucking()
        // The cue drops under a prompt whether or not the voice is mixed, so the cues sound the
        // same alone as in the full mix.
        self.promptedKinds = voice.promptCycles > 0 ? Set(voice.prompts.keys) : []
        self.promptedCycles = voice.promptCycles
        self.cueUnderPromptGain = Float(decibelsToGain(voice.cueUnderPromptDecibels))
        // Voice left out of the mix still shapes it: the ambience and the bells duck under it, and
        // the end bell waits for the outro. Those sounds are loaded (for their lengths) though not mixed, so a
        // layer sounds the same alone as in the full mix.
        var unmixed: [SoundRef] = []
        if !layers.contains(.voice) {
            if layers.contains(.ambience) || layers.contains(.bells) {
                unmixed += voiceClips.compactMap { if case .file(let r) = $0.sound { r } else { nil } }
            }
            if layers.contains(.bells), bells.end != nil, let outro = voice.outro { unmixed.append(outro) }
        }
        self.unmixedSoundsNeeded = unmixed
        self.metronome = layers.contains(.cues) ? session.metronome : nil
        self.swell = layers.contains(.cues) ? session.swell : nil
        self.beats = layers.contains(.beats) ? beats : nil
        // In a session fitted to a shorter length, the master fade-out waits for the end bell to ring out.
        var masterFadeOut = session.master.fadeOut
        if fitted, let ringEnd = placer.endBellRingEnd, ringEnd <= total, total - ringEnd < masterFadeOut {
            masterFadeOut = total - ringEnd
        }
        self.master = MasterPlan(
            fadeInFrames: frames(session.master.fadeIn), fadeOutFrames: frames(masterFadeOut),
            fadeCurve: session.master.fadeCurve, loudnessLUFS: session.master.loudnessLUFS,
            truePeakDBTP: session.master.truePeakDBTP)
        self.seed = session.seed
        self.soundFrameCounts = sounds?.mapValues(\.frameCount) ?? [:]
        self.guide = GuidePlan(lines: placer.guideLines, language: session.language, spoken: session.voice.spokenTexts,
                               speaker: session.voice.speaker)
    }

    /// The same plan with only `layers` mixed: what planning with only those layers gives (the
    /// clock, the placements and the ducking do not depend on the layers mixed), without planning
    /// again. A stem is the plan restricted to its layer.
    public func restricted(to layers: Set<Layer>) -> RenderPlan {
        var plan = self
        plan.layers = self.layers.intersection(layers)
        plan.isLayersApart = true
        plan.clips = clips.filter { layers.contains($0.layer) }
        if !layers.contains(.ambience) { plan.beds = [] }
        if !layers.contains(.cues) {
            plan.cues = []
            plan.metronome = nil
            plan.swell = nil
        }
        if !layers.contains(.beats) { plan.beats = nil }
        plan.unmixedSoundsNeeded = []
        return plan
    }

    /// The frames a clip sounds: its sound's length, cut at `maximumFrames` (a synthesized tick
    /// as long as the mixer makes it; a file whose length the plan does not know, nothing).
    public func soundingFrames(of clip: ClipEvent) -> Int64 {
        let length: Int64
        switch clip.sound {
        case .file(let ref): length = soundFrameCounts[ref] ?? 0
        case .cue(let kind): length = cues.first { $0.kind == kind && $0.segment == nil }?.lengthFrames ?? 0
        case .countdown, .metronome: length = Mixer.tickFrames(atRate: rate)
        }
        return max(0, min(length, clip.maximumFrames))
    }

    /// The cue event for a phase, or nil when its kind has no cue. A bell or bowl rings out for
    /// its whole sound; any other cue is cut, ramped to zero, at the end of its phase. On a phase
    /// with a voice prompt, or starting under a line of the guided script, the cue plays under it
    /// (`cueUnderPromptGain` lower); one that starts before a line and rings into it dips only from
    /// the line on (`CueDip`), so its onset is heard whole.
    public func cueEvent(for phase: ScheduledPhase) -> ClipEvent? {
        let segment = ownCueSegments.contains(phase.segment) ? phase.segment : nil
        guard let cue = cues.first(where: { $0.kind == phase.kind && $0.segment == segment }) else { return nil }
        let start = phase.start.frame(atRate: rate)
        let end = phase.end.frame(atRate: rate)
        let available = cue.sound.ringsOut ? cue.lengthFrames : end - start
        let sounding = min(cue.lengthFrames, available)
        var event = ClipEvent(
            layer: .cues, sound: .cue(phase.kind), startFrame: start, maximumFrames: sounding,
            gain: Float(decibelsToGain(cue.sound.gainDecibels)), pan: Float(cue.sound.pan),
            releaseFrames: min(Self.cueRelease.frame(atRate: rate), available / 2))
        if phase.cycle <= promptedCycles, promptedKinds.contains(phase.kind) {
            event.gain *= cueUnderPromptGain
        } else if let line = guide.lines.first(where: { $0.startFrame < start + sounding && start < $0.endFrame }) {
            // Lines are in time order: the first the cue sounds with started under it or after it.
            if line.startFrame <= start {
                event.gain *= cueUnderPromptGain
            } else if cueUnderPromptGain != 1 {
                event.dip = CueDip(frame: line.startFrame, attackFrames: min(bellDucking.attackFrames, line.startFrame - start),
                                   gain: cueUnderPromptGain, curve: bellDucking.curve)
            }
        }
        return event
    }
}

extension RenderPlan {
    /// Counts the plans made in a task while it is set: what a test reads to see that a render
    /// plans once, whatever faces it feeds.
    @TaskLocal public static var tally: PlanTally?
}

/// A count of plans made (see `RenderPlan.tally`).
public final class PlanTally: Sendable {
    private let count = Mutex(0)
    public init() {}
    public var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
