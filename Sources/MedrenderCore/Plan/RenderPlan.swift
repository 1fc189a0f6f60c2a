import Foundation

/// How to render: the output's rate and channels, the length, and which layers to mix.
public struct RenderOptions: Hashable, Sendable {
    /// Output sample rate in hertz, 8000…192000, default 48000.
    public var rate: Int
    /// Output channels, 1 or 2, default 2.
    public var channels: Int
    public var length: SessionLength
    public var layers: Set<Layer>

    public init(rate: Int = 48000, channels: Int = 2, length: SessionLength, layers: Set<Layer> = Set(Layer.allCases)) {
        self.rate = rate
        self.channels = channels
        self.length = length
        self.layers = layers
    }

    public static let rateRange = 8000...192_000
}

/// A named point in the session: settle, breathing, each chained segment, closing.
public struct SessionSection: Hashable, Sendable {
    public var name: String
    public var time: SessionTime
    public var frame: Int64
}

/// A clip placed on the clock: a voice clip, a bell, or a cue.
public struct ClipEvent: Hashable, Sendable {
    public enum Sound: Hashable, Sendable {
        case file(SoundRef)
        case cue(PhaseKind)
        /// A soft synthesized tick for the countdown.
        case countdown
        /// A soft synthesized tick for the metronome.
        case metronome
    }
    public var layer: Layer
    public var sound: Sound
    public var startFrame: Int64
    /// The most frames it may play; a longer sound is cut here, ramped to zero over `releaseFrames`.
    public var maximumFrames: Int64
    /// Linear gain.
    public var gain: Float
    /// Stereo position, −1…1.
    public var pan: Float
    /// Length of the raised-cosine release applied when the sound is cut at `maximumFrames`.
    public var releaseFrames: Int64
}

/// An ambience bed placed on the clock, with its own gain envelope.
public struct BedEvent: Hashable, Sendable {
    public var sound: SoundRef
    public var seamFrames: Int64
    /// Linear gain at full level.
    public var gain: Float
    public var startFrame: Int64
    public var endFrame: Int64
    /// Frames of fade in from `startFrame`, and of fade out ending at `endFrame`.
    public var fadeInFrames: Int64
    public var fadeOutFrames: Int64
    public var fadeCurve: FadeCurve
    /// A seeded value; the loop starts at `loopOffsetSeed % loopLength`.
    public var loopOffsetSeed: UInt64
}

/// What sounds at a phase of one kind, at the output rate.
public struct CuePlan: Hashable, Sendable {
    public var kind: PhaseKind
    public var sound: CueSound
    public var lengthFrames: Int64
}

/// The master chain's settings in frames.
public struct MasterPlan: Hashable, Sendable {
    public var fadeInFrames: Int64
    public var fadeOutFrames: Int64
    public var fadeCurve: FadeCurve
    public var loudnessLUFS: Double
    public var truePeakDBTP: Double
}

/// What the planner needs to know of a loaded sound.
public struct SoundFacts: Hashable, Sendable {
    /// Length in frames at the output rate.
    public var frameCount: Int64
    /// Integrated loudness in LUFS; nil when the sound is too short or too quiet to measure.
    public var loudnessLUFS: Double?

    public init(frameCount: Int64, loudnessLUFS: Double? = nil) {
        self.frameCount = frameCount
        self.loudnessLUFS = loudnessLUFS
    }

    /// The gain in decibels that makes this sound play at `level` LUFS (0 when unmeasured).
    public func gainDecibels(toLevel level: Double) -> Double {
        guard let loudnessLUFS, loudnessLUFS.isFinite else { return 0 }
        return level - loudnessLUFS
    }
}

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
}

/// Everything of a session placed on one clock, in integer frames at the output rate.
///
/// Planning is pure: it takes the lengths of the sounds (at the output rate) and does no I/O.
public struct RenderPlan: Sendable {
    public let rate: Int
    public let channels: Int
    public let totalFrames: Int64
    public let total: SessionTime
    public let layers: Set<Layer>
    public let schedule: BreathSchedule
    public let sections: [SessionSection]
    /// Bells and voice clips, in start order. Cues are generated from the schedule as they play.
    public let clips: [ClipEvent]
    public let beds: [BedEvent]
    /// The cue for each phase kind that has one (and only when the cues layer is on).
    public let cues: [CuePlan]
    public let master: MasterPlan
    public let seed: UInt64
    /// How the ambience dips under the voice.
    public let ducking: DuckPlan
    /// Voice sounds the plan does not play but whose lengths shape the other layers (the ducking,
    /// the end bell after the outro).
    let unmixedSoundsNeeded: [SoundRef]
    /// Metronome ticks through the phases, when the cues layer has one.
    public let metronome: Metronome?
    /// The breath swell, when the cues layer has one.
    public let swell: BreathSwell?

    /// The longest session medrender renders: 24 hours.
    public static let longestSession = SessionTime.seconds(24 * 3600)
    /// Cues are cut with a release of this length (or half the phase, when shorter).
    public static let cueRelease = SessionTime(milliseconds: 20)

    /// Every sound file the plan plays, each once.
    public var soundsUsed: [SoundRef] {
        var seen: [SoundRef] = []
        for ref in clips.compactMap({ if case .file(let r) = $0.sound { r } else { nil } })
            + beds.map(\.sound) + unmixedSoundsNeeded
            + cues.compactMap({ if case .sound(let r) = $0.sound.source { r } else { nil } })
        where !seen.contains(ref) { seen.append(ref) }
        return seen
    }

    /// The cue sheet: every cue's kind, frame, time and cycle, in order.
    public var cueMarks: CueMarks { CueMarks(plan: self) }

    /// Only the schedule and the clock: enough for a cue sheet, with no sound lengths needed.
    public init(session: Session, options: RenderOptions) throws(PlanError) {
        try self.init(session: session, options: options, sounds: nil)
    }

    /// Plans `session`; `sounds` gives each sound's length at the output rate and its loudness.
    public init(session: Session, options: RenderOptions, sounds: [SoundRef: SoundFacts]?) throws(PlanError) {
        let soundFrames = sounds?.mapValues(\.frameCount)
        let rate = options.rate
        func frames(_ t: SessionTime) -> Int64 { t.frame(atRate: rate) }
        func time(ofFrames n: Int64) -> SessionTime {
            SessionTime(milliseconds: (n * 1000 + Int64(rate) - 1) / Int64(rate))
        }

        // The clock: settle, whole cycles, closing.
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
        let totalFrames = frames(total)
        if session.master.fadeIn + session.master.fadeOut > total {
            throw .fadesLongerThanSession(fadeIn: session.master.fadeIn, fadeOut: session.master.fadeOut, total: total)
        }

        var sections = [
            SessionSection(name: "Settle", time: .zero, frame: 0),
            SessionSection(name: "Breathing", time: schedule.start, frame: frames(schedule.start)),
        ]
        if session.segments.count > 1 {
            for (index, start) in schedule.segmentStarts.enumerated() where schedule.cycleCounts[index] > 0 {
                let segment = session.segments[index]
                sections.append(SessionSection(
                    name: segment.name ?? "Segment \(index + 1): \(segment.pattern)", time: start, frame: frames(start)))
            }
        }
        sections.append(SessionSection(name: "Closing", time: schedule.end, frame: frames(schedule.end)))

        // Fixed clips: bells and voice.
        var clips: [ClipEvent] = []
        // Voice clips are placed (and checked) even when the voice layer is off: the ambience ducks
        // under them all the same, so a stem of the ambience matches the ambience in the mix.
        var voiceClips: [ClipEvent] = []
        func clip(_ layer: Layer, _ sound: ClipEvent.Sound, at start: SessionTime, gainDecibels: Double,
                  maximum: Int64? = nil) {
            let startFrame = frames(start)
            let event = ClipEvent(
                layer: layer, sound: sound, startFrame: startFrame,
                maximumFrames: min(maximum ?? .max, max(0, totalFrames - startFrame)),
                gain: Float(decibelsToGain(gainDecibels)), pan: 0, releaseFrames: 0)
            if layer == .voice { voiceClips.append(event) }
            if options.layers.contains(layer) { clips.append(event) }
        }
        func length(of ref: SoundRef) -> Int64 { soundFrames?[ref] ?? 0 }
        func duration(of ref: SoundRef) -> SessionTime { time(ofFrames: length(of: ref)) }
        let known = soundFrames != nil
        let layers = options.layers
        let voice = session.voice
        let bells = session.bells
        func voiceGain(_ ref: SoundRef) -> Double {
            sounds?[ref]?.gainDecibels(toLevel: voice.levelLUFS) ?? 0
        }

        if layers.contains(.bells), let bell = bells.start {
            clip(.bells, .file(bell), at: .zero, gainDecibels: bells.gainDecibels)
        }
        if let intro = voice.intro {
            let available = session.settle - voice.introAt
            if known, duration(of: intro) > available {
                throw .clipDoesNotFit(role: "intro voice", sound: intro, clip: duration(of: intro), available: available, field: "settle")
            }
            clip(.voice, .file(intro), at: voice.introAt, gainDecibels: voiceGain(intro))
        }
        if let track = voice.track {
            let available = total - voice.trackAt
            if known, duration(of: track) > available {
                throw .trackTooLong(sound: track, track: duration(of: track), available: available)
            }
            clip(.voice, .file(track), at: voice.trackAt, gainDecibels: voiceGain(track))
        }
        do {
            for timed in voice.clips {
                if known, timed.at + duration(of: timed.sound) > total {
                    throw .clipAfterEnd(sound: timed.sound, clip: duration(of: timed.sound), at: timed.at, total: total)
                }
                clip(.voice, .file(timed.sound), at: timed.at, gainDecibels: voiceGain(timed.sound))
            }
        }
        // Prompts: on the first frame of each phase of the first cycles; each must fit its phase.
        if !voice.prompts.isEmpty, voice.promptCycles > 0 {
            for phase in schedule {
                guard phase.cycle <= voice.promptCycles else { break }
                guard let prompt = voice.prompts[phase.kind] else { continue }
                if known, duration(of: prompt) > phase.length {
                    throw .promptLongerThanPhase(sound: prompt, prompt: duration(of: prompt), phase: phase.kind,
                                                 length: phase.length, cycle: phase.cycle)
                }
                clip(.voice, .file(prompt), at: phase.start, gainDecibels: voiceGain(prompt),
                     maximum: frames(phase.end) - frames(phase.start))
            }
        }
        var closingCursor = schedule.end + voice.outroAfter
        if let outro = voice.outro {
            let available = total - closingCursor
            if known, duration(of: outro) > available {
                throw .clipDoesNotFit(role: "outro voice", sound: outro, clip: duration(of: outro), available: available, field: "closing")
            }
            clip(.voice, .file(outro), at: closingCursor, gainDecibels: voiceGain(outro))
            closingCursor += duration(of: outro) + .seconds(1)
        }
        if layers.contains(.bells) {
            if let bell = bells.end, closingCursor < total {
                clip(.bells, .file(bell), at: closingCursor, gainDecibels: bells.gainDecibels)
            }
            if let bell = bells.interval ?? bells.start {
                var times = bells.at.filter { $0 < total }
                if let every = bells.every, every > .zero {
                    var t = schedule.start + every
                    while t < schedule.end {
                        times.append(t)
                        t += every
                    }
                }
                for t in times { clip(.bells, .file(bell), at: t, gainDecibels: bells.gainDecibels) }
            }
            if bells.countdownSeconds > 0 {
                for k in 1...bells.countdownSeconds {
                    let t = schedule.end - SessionTime.seconds(Int64(k))
                    if t >= schedule.start { clip(.bells, .countdown, at: t, gainDecibels: bells.gainDecibels - 12) }
                }
            }
        }
        clips.sort { $0.startFrame < $1.startFrame }

        // Ducking: the ambience dips under every voice clip, reaching its depth as the voice starts.
        var voiced: [(Int64, Int64)] = []
        for c in voiceClips {
            guard case .file(let ref) = c.sound else { continue }
            voiced.append((c.startFrame, c.startFrame + min(length(of: ref), c.maximumFrames)))
        }
        let ducking = DuckPlan(
            gain: Float(decibelsToGain(voice.duckDecibels)), attackFrames: frames(voice.duckAttack),
            releaseFrames: frames(voice.duckRelease), curve: voice.duckCurve, voiced: voiced)

        // Ambience: each bed takes over from the one before at its start point (by default the beds
        // share the session equally), with an equal-power crossfade centred on the join.
        var beds: [BedEvent] = []
        if layers.contains(.ambience), !session.ambience.isEmpty {
            var generator = SeededGenerator(seed: session.seed)
            let count = session.ambience.count
            let half = SessionTime(milliseconds: session.ambienceCrossfade.milliseconds / 2)
            var joins: [SessionTime] = []
            for (index, bed) in session.ambience.enumerated().dropFirst() {
                let join: SessionTime
                switch bed.from {
                case .fraction(let f)?: join = SessionTime(milliseconds: Int64((Double(total.milliseconds) * f).rounded()))
                case .time(let t)?: join = t
                case nil: join = SessionTime(milliseconds: total.milliseconds * Int64(index) / Int64(count))
                }
                let previous = joins.last ?? .zero
                if join - half < previous + half || join + half > total {
                    throw .bedsOverlap(sound: bed.sound, at: join, crossfade: session.ambienceCrossfade, total: total)
                }
                joins.append(join)
            }
            for (index, bed) in session.ambience.enumerated() {
                let isFirst = index == 0, isLast = index == count - 1
                let start = isFirst ? .zero : joins[index - 1] - half
                let end = isLast ? total : joins[index] + half
                beds.append(BedEvent(
                    sound: bed.sound, seamFrames: frames(bed.seam),
                    gain: Float(decibelsToGain(sounds?[bed.sound]?.gainDecibels(toLevel: bed.levelLUFS) ?? 0)),
                    startFrame: frames(start), endFrame: frames(end),
                    fadeInFrames: frames(isFirst ? session.ambienceFadeIn : half * 2),
                    fadeOutFrames: frames(isLast ? session.ambienceFadeOut : half * 2),
                    fadeCurve: session.ambienceCurve, loopOffsetSeed: generator.next()))
            }
        }

        var cues: [CuePlan] = []
        if layers.contains(.cues) {
            for kind in PhaseKind.allCases {
                if let sound = session.cues[kind] {
                    cues.append(CuePlan(kind: kind, sound: sound, lengthFrames: frames(sound.length)))
                }
            }
        }

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
        // Voice left out of the mix still shapes it: the ambience ducks under it, and the end bell
        // waits for the outro. Those sounds are loaded (for their lengths) though not mixed, so a
        // layer sounds the same alone as in the full mix.
        var unmixed: [SoundRef] = []
        if !layers.contains(.voice) {
            if layers.contains(.ambience) { unmixed += voiceClips.compactMap { if case .file(let r) = $0.sound { r } else { nil } } }
            if layers.contains(.bells), bells.end != nil, let outro = voice.outro { unmixed.append(outro) }
        }
        self.unmixedSoundsNeeded = unmixed
        self.metronome = layers.contains(.cues) ? session.metronome : nil
        self.swell = layers.contains(.cues) ? session.swell : nil
        self.master = MasterPlan(
            fadeInFrames: frames(session.master.fadeIn), fadeOutFrames: frames(session.master.fadeOut),
            fadeCurve: session.master.fadeCurve, loudnessLUFS: session.master.loudnessLUFS,
            truePeakDBTP: session.master.truePeakDBTP)
        self.seed = session.seed
    }

    /// The cue event for a phase, or nil when its kind has no cue.
    public func cueEvent(for phase: ScheduledPhase) -> ClipEvent? {
        guard let cue = cues.first(where: { $0.kind == phase.kind }) else { return nil }
        let start = phase.start.frame(atRate: rate)
        let end = phase.end.frame(atRate: rate)
        let available = end - start
        let release = min(Self.cueRelease.frame(atRate: rate), available / 2)
        return ClipEvent(
            layer: .cues, sound: .cue(phase.kind), startFrame: start, maximumFrames: min(cue.lengthFrames, available),
            gain: Float(decibelsToGain(cue.sound.gainDecibels)), pan: Float(cue.sound.pan), releaseFrames: release)
    }
}

/// Converts decibels to a linear gain factor.
public func decibelsToGain(_ decibels: Double) -> Double {
    pow(10, decibels / 20)
}

/// Converts a linear gain factor to decibels (−∞ for 0).
public func gainToDecibels(_ gain: Double) -> Double {
    20 * log10(gain)
}
