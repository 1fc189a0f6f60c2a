/// Places the fixed clips of a session on the clock: the voice (intro, track, timed clips,
/// prompts, outro) and the bells (start, end after the outro, interval, listed minutes,
/// countdown), each checked against the time it has when the sounds' lengths are known.
struct ClipPlacer {
    let session: Session
    let options: RenderOptions
    let sounds: [SoundRef: SoundFacts]?
    let schedule: BreathSchedule
    let total: SessionTime
    let totalFrames: Int64
    /// The clips of the layers mixed, in start order once `place()` is done.
    private(set) var clips: [ClipEvent] = []
    /// Voice clips are placed (and checked) even when the voice layer is off: the ambience ducks
    /// under them all the same, so a stem of the ambience matches the ambience in the mix.
    private(set) var voiceClips: [ClipEvent] = []
    /// Whether the session was fitted to a shorter length than its preset's (`ShortSessionFit`).
    let fitted: Bool
    /// What was left out, for the report.
    private(set) var notes: [String] = []
    /// Where the end bell (its last strike) has rung out, when there is one.
    private(set) var endBellRingEnd: SessionTime?
    /// The guided script's lines, placed (`placeScript`).
    private(set) var guideLines: [PlacedLine] = []

    init(session: Session, options: RenderOptions, sounds: [SoundRef: SoundFacts]?, schedule: BreathSchedule, total: SessionTime,
         fitted: Bool = false) {
        self.session = session
        self.fitted = fitted
        self.options = options
        self.sounds = sounds
        self.schedule = schedule
        self.total = total
        self.totalFrames = total.frame(atRate: options.rate)
    }

    private func frames(_ t: SessionTime) -> Int64 { t.frame(atRate: options.rate) }

    /// A sound's length in frames at the output rate (0 when the lengths are not known).
    func length(of ref: SoundRef) -> Int64 { sounds?[ref]?.frameCount ?? 0 }

    /// A sound's length, rounded up to the millisecond.
    private func duration(of ref: SoundRef) -> SessionTime {
        SessionTime(covering: length(of: ref), atRate: options.rate)
    }

    private var known: Bool { sounds != nil }

    private func voiceGain(_ ref: SoundRef) -> Double {
        sounds?[ref]?.gainDecibels(toLevel: session.voice.levelLUFS) ?? 0
    }

    private mutating func clip(_ layer: Layer, _ sound: ClipEvent.Sound, at start: SessionTime, gainDecibels: Double,
                               maximum: Int64? = nil) {
        let startFrame = frames(start)
        let event = ClipEvent(
            layer: layer, sound: sound, startFrame: startFrame,
            maximumFrames: min(maximum ?? .max, max(0, totalFrames - startFrame)),
            gain: Float(decibelsToGain(gainDecibels)), pan: 0, releaseFrames: 0)
        if layer == .voice { voiceClips.append(event) }
        if options.layers.contains(layer) { clips.append(event) }
    }

    /// In a session fitted to a shorter length, a clip that no longer fits is left out with a note;
    /// in a session as its preset has it, it is an error.
    private mutating func leaveOut(_ sound: SoundRef, _ what: String, because error: PlanError) throws(PlanError) {
        guard fitted else { throw error }
        notes.append("\(what) ('\(sound)', \(duration(of: sound).secondsText) s) does not fit the shorter session: left out")
    }

    /// Places every clip, or says which does not fit.
    mutating func place() throws(PlanError) {
        if options.layers.contains(.bells) { placeStartBell() }
        try placeIntro()
        try placeTrack()
        try placeTimedClips()
        try placeSegmentVoices()
        try placeLeadIn()
        try placePrompts()
        let bells = session.bells
        // The end bell's ring: its last strike's onset and the sound's whole length.
        let endRing = bells.end.map { bell in (bells.endStrikes.offsets.last ?? .zero) + (known ? duration(of: bell) : .zero) }
        var closingCursor = try placeOutro(endRing: endRing)
        // The script's lines, placed around the voice above; the end bell rings after the last
        // word of the closing, as after the outro, so no line speaks over its ring, unless it
        // has no room there.
        let beforeLines = closingCursor
        try placeScript()
        if let last = guideLines.map(\.endFrame).max(), last > frames(closingCursor) {
            closingCursor = SessionTime(covering: last, atRate: options.rate) + .seconds(1)
        }
        closingCursor = endBellCursor(after: closingCursor, beforeLines: beforeLines, endRing: endRing)
        noteEndBellRoom(closingCursor: closingCursor, endRing: endRing)
        if options.layers.contains(.bells) {
            placeEndBell(closingCursor: closingCursor)
            placeTimedBells()
            placeTicks()
        }
        if !voiceClips.isEmpty { levelBellsUnderVoice() }
        clips.sort { $0.startFrame < $1.startFrame }
    }

    /// In a session with a voice, which sets its loudness, a bell strikes at most
    /// `BellSettings.strikeUnderVoiceLU` under the voice's level (its loudest 400 ms against the
    /// level every voice clip plays at), whatever its gain: a bell over the words startles.
    private mutating func levelBellsUnderVoice() {
        let most = session.voice.levelLUFS - BellSettings.strikeUnderVoiceLU
        for k in clips.indices where clips[k].layer == .bells {
            guard case .file(let ref) = clips[k].sound, let loudest = sounds?[ref]?.loudestLUFS else { continue }
            clips[k].gain = min(clips[k].gain, Float(decibelsToGain(most - loudest)))
        }
    }

    /// The start bell's strikes, from the start of the file.
    private mutating func placeStartBell() {
        let bells = session.bells
        guard let bell = bells.start else { return }
        for offset in bells.startStrikes.offsets where offset < total {
            clip(.bells, .file(bell), at: offset, gainDecibels: bells.gainDecibels)
        }
    }

    /// The intro voice, which must end by the end of the settle.
    private mutating func placeIntro() throws(PlanError) {
        let voice = session.voice
        guard let intro = voice.intro else { return }
        var introAt = voice.introAt
        // In a fitted session the intro moves earlier, to the start if need be, to fit the settle.
        if fitted, known, duration(of: intro) > session.settle - introAt {
            introAt = max(.zero, min(introAt, session.settle - duration(of: intro)))
        }
        let available = session.settle - introAt
        if known, duration(of: intro) > available {
            let error = PlanError.clipDoesNotFit(role: "intro voice", sound: intro, clip: duration(of: intro), available: available, field: "settle")
            try leaveOut(intro, "the intro voice", because: error)
        } else {
            clip(.voice, .file(intro), at: introAt, gainDecibels: voiceGain(intro))
        }
    }

    /// The one long guided track, which must end by the end of the file.
    private mutating func placeTrack() throws(PlanError) {
        let voice = session.voice
        guard let track = voice.track else { return }
        let available = total - voice.trackAt
        if known, duration(of: track) > available {
            try leaveOut(track, "the guided track", because: .trackTooLong(sound: track, track: duration(of: track), available: available))
        } else {
            clip(.voice, .file(track), at: voice.trackAt, gainDecibels: voiceGain(track))
        }
    }

    /// The voice clips at set times, each of which must end by the end of the file.
    private mutating func placeTimedClips() throws(PlanError) {
        for timed in session.voice.clips {
            if known, timed.at + duration(of: timed.sound) > total {
                try leaveOut(timed.sound, "the voice clip at \(timed.at.secondsText) s",
                             because: .clipAfterEnd(sound: timed.sound, clip: duration(of: timed.sound), at: timed.at, total: total))
            } else {
                clip(.voice, .file(timed.sound), at: timed.at, gainDecibels: voiceGain(timed.sound))
            }
        }
    }

    /// A segment's own voice clip, on its first frame (a segment that does not play says nothing).
    private mutating func placeSegmentVoices() throws(PlanError) {
        for (index, segment) in session.segments.enumerated() {
            guard let sound = segment.voice, index < schedule.cycleCounts.count, schedule.cycleCounts[index] > 0 else { continue }
            let at = schedule.segmentStarts[index]
            if known, at + duration(of: sound) > total {
                try leaveOut(sound, "the voice of segment \(index + 1)",
                             because: .clipAfterEnd(sound: sound, clip: duration(of: sound), at: at, total: total))
            } else {
                clip(.voice, .file(sound), at: at, gainDecibels: voiceGain(sound))
            }
        }
    }

    /// The lead-in: spoken numbers on the last seconds before the first breath, each cut at the next.
    private mutating func placeLeadIn() throws(PlanError) {
        let leadIn = session.voice.leadIn
        for (index, number) in leadIn.enumerated() {
            let at = schedule.start - .seconds(Int64(leadIn.count - index))
            if at < .zero {
                let error = PlanError.clipDoesNotFit(role: "lead-in voice", sound: number, clip: .seconds(1),
                                                     available: schedule.start, field: "settle")
                try leaveOut(number, "the lead-in's count", because: error)
                continue
            }
            clip(.voice, .file(number), at: at, gainDecibels: voiceGain(number), maximum: frames(at + .seconds(1)) - frames(at))
        }
    }

    /// Prompts: on the first frame of each phase of the first cycles; each must fit its phase.
    private mutating func placePrompts() throws(PlanError) {
        let voice = session.voice
        guard !voice.prompts.isEmpty, voice.promptCycles > 0 else { return }
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

    /// The outro voice, `outroAfter` past the last breath, left out in a fitted session where it
    /// would leave the end bell (ringing for `endRing`) no room. Returns where the closing's next
    /// sound may start: a second after the outro, or where the outro would have started.
    private mutating func placeOutro(endRing: SessionTime?) throws(PlanError) -> SessionTime {
        let closingCursor = schedule.end + session.voice.outroAfter
        guard let outro = session.voice.outro else { return closingCursor }
        let available = total - closingCursor
        if fitted, known, let endRing, let bell = session.bells.end, duration(of: outro) <= available,
           closingCursor + duration(of: outro) + .seconds(1) + endRing > total, closingCursor + endRing <= total {
            // A session fitted to a shorter length has no room for both: the end bell rings out, the outro is left out.
            notes.append("the outro voice ('\(outro)', \(duration(of: outro).secondsText) s) leaves the end bell ('\(bell)', "
                + "\(endRing.secondsText) s) no room to ring out in the shorter session: left out")
        } else if known, duration(of: outro) > available {
            let error = PlanError.clipDoesNotFit(role: "outro voice", sound: outro, clip: duration(of: outro), available: available, field: "closing")
            try leaveOut(outro, "the outro voice", because: error)
        } else {
            clip(.voice, .file(outro), at: closingCursor, gainDecibels: voiceGain(outro))
            return closingCursor + duration(of: outro) + .seconds(1)
        }
        return closingCursor
    }

    /// Where the end bell rings: after the closing's lines (`cursor`), or, when its ring would be
    /// cut by the session's end there (a short session, whose closing lines fill its end), where
    /// the closing's lines were free to start (`beforeLines`): the bell then marks the end of the
    /// breathing, and the lines speak over its ring, which dips under them as any bell does.
    private mutating func endBellCursor(after cursor: SessionTime, beforeLines: SessionTime, endRing: SessionTime?) -> SessionTime {
        guard known, let endRing, let bell = session.bells.end, cursor > beforeLines, cursor + endRing > total,
              beforeLines < total else { return cursor }
        notes.append("the end bell ('\(bell)', \(endRing.secondsText) s) has no room to ring out after the closing's lines: "
            + "it rings at \(beforeLines.secondsText) s, before them")
        return beforeLines
    }

    /// Notes an end bell that has no room after the closing's voice, or too little to ring out,
    /// and sets `endBellRingEnd`.
    private mutating func noteEndBellRoom(closingCursor: SessionTime, endRing: SessionTime?) {
        if known, let bell = session.bells.end, closingCursor >= total {
            // The outro or the closing's last line runs to the end: no room for the bell at all.
            notes.append("the end bell ('\(bell)') has no room after the voice, which runs to \(closingCursor.secondsText) s of "
                + "\(total.secondsText): left out; give a closing (or a session) longer")
        }
        if let endRing, let bell = session.bells.end, closingCursor < total {
            endBellRingEnd = closingCursor + endRing
            if known, closingCursor + endRing > total {
                notes.append("the end bell ('\(bell)', \(endRing.secondsText) s) has only \((total - closingCursor).secondsText) s before the end: "
                    + "it is faded out before it has rung out; give a closing (or a session) \((closingCursor + endRing - total).secondsText) s longer")
            }
        }
    }

    /// The end bell's strikes, from `closingCursor` (after the closing's voice) to the end of the file.
    private mutating func placeEndBell(closingCursor: SessionTime) {
        let bells = session.bells
        guard let bell = bells.end, closingCursor < total else { return }
        for offset in bells.endStrikes.offsets where closingCursor + offset < total {
            clip(.bells, .file(bell), at: closingCursor + offset, gainDecibels: bells.gainDecibels)
        }
    }

    /// The bells at listed times and every `every` through the breathing, those too close to the
    /// one before merged into it (with a note).
    private mutating func placeTimedBells() {
        let bells = session.bells
        guard let bell = bells.interval ?? bells.start else { return }
        var times = bells.at.filter { $0 < total }
        if let every = bells.every, every > .zero {
            var t = schedule.start + every
            while t < schedule.end {
                times.append(t)
                t += every
            }
        }
        // Bells closer than a strike cannot be heard apart: each such one is merged into
        // the bell before it, and the count said, so the work stays bounded by the session.
        times.sort()
        var last: SessionTime?
        var merged = 0
        for t in times {
            if let last, t - last < BellSettings.leastGap {
                merged += 1
                continue
            }
            clip(.bells, .file(bell), at: t, gainDecibels: bells.gainDecibels)
            last = t
        }
        if merged > 0 {
            notes.append("\(merged) timed bell\(merged == 1 ? " is" : "s are") less than \(BellSettings.leastGap.secondsText) s "
                + "after the one before, too close to be heard apart: merged into it; space 'bells.at' further apart")
        }
    }

    /// The soft ticks on the last seconds before the first breath (lead-in) and of the breathing
    /// (countdown), 12 dB under the bells.
    private mutating func placeTicks() {
        let bells = session.bells
        if bells.leadInSeconds > 0 {
            for k in 1...bells.leadInSeconds {
                let t = schedule.start - SessionTime.seconds(Int64(k))
                if t >= .zero { clip(.bells, .countdown, at: t, gainDecibels: bells.gainDecibels - 12) }
            }
        }
        if bells.countdownSeconds > 0 {
            for k in 1...bells.countdownSeconds {
                let t = schedule.end - SessionTime.seconds(Int64(k))
                if t >= schedule.start { clip(.bells, .countdown, at: t, gainDecibels: bells.gainDecibels - 12) }
            }
        }
    }

    /// Places the guided script's lines after every other voice sound, which they never overlap
    /// (`ScriptPlacer`), and plays each as a voice clip.
    private mutating func placeScript() throws(PlanError) {
        guard let script = session.guide, !script.lines.isEmpty else { return }
        let obstacles = voiceClips.compactMap { c -> Range<Int64>? in
            guard case .file(let ref) = c.sound else { return nil }
            let n = min(length(of: ref), c.maximumFrames)
            return n > 0 ? c.startFrame..<(c.startFrame + n) : nil
        }
        // In a session shorter than its preset's, a line that does not fit is left out with a
        // note, as a clip is; at the preset's length or longer, it is an error.
        var shorter = fitted
        switch (session.defaultLength, options.length) {
        case (.duration(let preset), _): shorter = shorter || total < preset
        case (.cycles(let preset), .cycles(let asked)): shorter = shorter || asked < preset
        default: break
        }
        var kept = script
        var indices = Array(script.lines.indices)
        while true {
            let placer = ScriptPlacer(
                script: kept, rate: options.rate, schedule: schedule, total: total,
                lengthFrames: kept.lines.map { $0.sound.map(length(of:)) ?? 0 }, obstacles: obstacles)
            do {
                guideLines = try placer.place().map { var line = $0; line.index = indices[line.index]; return line }
                break
            } catch {
                let dropped: Int
                switch error {
                case .guideLineDoesNotFit(let line, _, _, _, _), .guideLinePlacement(let line, _, _, _): dropped = line
                default: throw error
                }
                guard shorter else { throw error }
                let text = kept.lines[dropped].text.map { "\"\($0.prefix(40))\"" } ?? "a clip"
                notes.append("guide line \(indices[dropped] + 1) (\(text)) does not fit the shorter session: left out")
                kept.lines.remove(at: dropped)
                indices.remove(at: dropped)
            }
        }
        for line in guideLines {
            guard let ref = line.sound else { continue }
            let event = ClipEvent(
                layer: .voice, sound: .file(ref), startFrame: line.startFrame, maximumFrames: max(0, totalFrames - line.startFrame),
                gain: Float(decibelsToGain(voiceGain(ref))), pan: 0, releaseFrames: 0)
            voiceClips.append(event)
            if options.layers.contains(.voice) { clips.append(event) }
        }
    }

    /// Ducking: the ambience dips under every voice clip, reaching its depth as the voice starts;
    /// `fadeIn` is the first bed's fade-in, which a dip never cuts into.
    func ducking(fadeIn: Range<Int64>? = nil) -> DuckPlan {
        let voice = session.voice
        let voiced = voicedStretches
        // Dips closer than a breath cycle (the longest of the session's) are one dip, whatever the
        // phase lengths: a prompt at every phase keeps the bed down through the prompted cycles.
        let cycle = session.segments.map(\.shortestCycle).max() ?? .zero
        return DuckPlan(
            gain: Float(decibelsToGain(voice.duckDecibels)), attackFrames: frames(voice.duckAttack),
            releaseFrames: frames(voice.duckRelease), holdFrames: frames(voice.duckHold), mergeFrames: frames(cycle),
            curve: voice.duckCurve, voiced: voiced, fadeIn: fadeIn)
    }

    /// How a bell dips under the voice: a bell that rings into a spoken line or a voice clip
    /// drops by `cue-under-prompt` while the words sound and comes back after, on the ambience's
    /// ramps, so its strike is heard whole and its ring does not cover the words.
    func bellDucking() -> DuckPlan {
        let voice = session.voice
        return DuckPlan(
            gain: Float(decibelsToGain(voice.cueUnderPromptDecibels)), attackFrames: frames(voice.duckAttack),
            releaseFrames: frames(voice.duckRelease), curve: voice.duckCurve, voiced: voicedStretches)
    }

    /// The frames each voice clip and spoken line sounds, `[start, end)`.
    private var voicedStretches: [(Int64, Int64)] {
        voiceClips.compactMap { c in
            guard case .file(let ref) = c.sound else { return nil }
            return (c.startFrame, c.startFrame + min(length(of: ref), c.maximumFrames))
        }
    }
}
