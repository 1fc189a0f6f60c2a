import Foundation

/// The sounds a mixer plays: every file sound decoded at the output rate, and, once baked for a
/// plan, the sounds it plays as they are, its beds' loops and its tones, in 16 bits.
public struct MixAssets: Sendable {
    /// Sounds as decoded, in 32-bit floats: what is baked (a sound baked for a plan is let go).
    public var sounds: [SoundRef: AudioAsset]
    /// What the planner knows of each sound (length, loudness), for planning again.
    public var facts: [SoundRef: SoundFacts]
    /// Beds with their seams baked in, by sound and seam length in frames, held as 16-bit samples
    /// (a bed's loop is the longest sound a render holds).
    public private(set) var loops: [LoopKey: QuantizedAsset] = [:]
    /// Sounds played as they are (clips, a cue's sound), held as 16-bit samples.
    public private(set) var played: [SoundRef: QuantizedAsset] = [:]
    /// Beds' sounds decoded straight into 16 bits (`Int16.heldStep`), before their seams are
    /// baked: a render loads its beds so, never in floats. Let go once baked.
    public private(set) var beds: [SoundRef: QuantizedAsset] = [:]
    /// How a bed's floats go back to the system as they are rounded (`QuantizedAsset`); nil keeps
    /// them until the bed is baked.
    public var pages: PageRelease?
    /// What the mixers given these assets have mixed (shared by every copy).
    public let tally = MixTally()

    public struct LoopKey: Hashable, Sendable {
        public var sound: SoundRef
        public var seamFrames: Int64
    }

    /// `played`: sounds already rounded as they play (a render rounds each as it loads); `beds`:
    /// beds' sounds held in 16 bits at `Int16.heldStep`.
    public init(sounds: [SoundRef: AudioAsset], beds: [SoundRef: QuantizedAsset] = [:], played: [SoundRef: QuantizedAsset] = [:],
                facts: [SoundRef: SoundFacts] = [:]) {
        self.sounds = sounds
        self.beds = beds
        self.played = played
        self.facts = facts
    }

    /// Synthesized tones (cues, countdown and metronome ticks), by what makes them, in 16 bits.
    public private(set) var tones: [ToneKey: QuantizedAsset] = [:]

    public struct ToneKey: Hashable, Sendable {
        public var timbre: CueTimbre
        public var pitchHertz: Double
        public var frameCount: Int
        public var rate: Int
    }

    /// Bakes the seam into every bed `plan` loops, rounds every sound it plays as it is to 16 bits
    /// and takes every tone it plays from `ToneCache` (synthesized once a process), so every mixer
    /// of the render (pass 1's parts, pass 2, the stems) shares them. The sounds baked are then let go: the loops and the 16-bit
    /// sounds are what plays, and a sound held twice, or in floats, is most of a render's memory.
    /// So the assets serve `plan`: another plan's sounds are baked from sounds loaded for it.
    public mutating func bake(for plan: RenderPlan) {
        var playedAsIs: Set<SoundRef> = []
        for clip in plan.clips { if case .file(let ref) = clip.sound { playedAsIs.insert(ref) } }
        for cue in plan.cues { if case .sound(let ref) = cue.sound.source { playedAsIs.insert(ref) } }
        let beds = plan.beds.filter { $0.generator == nil }
        // A bed's sound loaded only as it plays (none is, but for a session whose beds the
        // render did not know of): its floats back from the 16 bits, which are let go unless the
        // sound also plays as it is.
        for bed in beds where sounds[bed.sound] == nil && self.beds[bed.sound] == nil {
            guard let asset = played[bed.sound] else { continue }
            sounds[bed.sound] = AudioAsset(channels: asset.channels, samples: asset.floats)
            if !playedAsIs.contains(bed.sound) { played[bed.sound] = nil }
        }
        // A bed's sound that also plays as it is (a clip, a cue's sound) plays as it was held.
        for ref in playedAsIs where played[ref] == nil && sounds[ref] == nil {
            if let held = self.beds[ref] { played[ref] = held }
        }
        for (index, bed) in beds.enumerated() {
            let key = LoopKey(sound: bed.sound, seamFrames: bed.seamFrames)
            guard loops[key] == nil else { continue }
            let neededLater = playedAsIs.contains(bed.sound)
                || beds[(index + 1)...].contains { $0.sound == bed.sound && $0.seamFrames != bed.seamFrames }
            if let held = self.beds[bed.sound] {
                // Held in 16 bits: baked so, in place at its last use.
                if !neededLater { self.beds[bed.sound] = nil }
                var samples = held.samples
                let channels = held.channels
                _ = consume held
                loops[key] = Self.loop(baking: &samples, channels: channels, seamFrames: bed.seamFrames)
                continue
            }
            guard sounds[bed.sound] != nil else { continue }
            if neededLater {
                loops[key] = QuantizedAsset(quantizing: LoopedBed.bake(sounds[bed.sound]!, seamFrames: Int(bed.seamFrames)))
            } else {
                // Its last use: baked in place, so a long bed is never held twice (unless a
                // cache shared by other renders holds it too).
                let raw = sounds.removeValue(forKey: bed.sound)!
                var samples = raw.samples
                let channels = raw.channels
                _ = consume raw
                LoopedBed.bake(&samples, channels: channels, seamFrames: Int(bed.seamFrames))
                loops[key] = QuantizedAsset(channels: channels, consuming: &samples, pages: pages)
            }
        }
        for bed in plan.beds where !playedAsIs.contains(bed.sound) { sounds[bed.sound] = nil }
        self.beds = [:]
        for ref in playedAsIs where played[ref] == nil {
            guard let asset = sounds.removeValue(forKey: ref) else { continue }
            played[ref] = QuantizedAsset(quantizing: asset)
        }
        for key in Self.toneKeys(for: plan) where tones[key] == nil {
            tones[key] = ToneCache.shared.entry(key).quantized
        }
    }

    /// A bed's sound held in 16 bits, with its seam baked in (in place when `samples` is held
    /// nowhere else; left empty), copied to its own length: the seam's frames cut from its end
    /// would stay allocated for the whole render (0.5 MiB of a 31-s bed with a 3-s seam).
    static func loop(baking samples: inout [Int16], channels: Int, seamFrames: Int64) -> QuantizedAsset {
        LoopedBed.bake(&samples, channels: channels, seamFrames: Int(seamFrames))
        let loop = [Int16](unsafeUninitializedCapacity: samples.count) { buffer, count in
            _ = buffer.initialize(from: samples)
            count = samples.count
        }
        samples = []
        return QuantizedAsset(channels: channels, held: loop)
    }

    /// The tone of `key`: the one baked, or the process's (`ToneCache`), synthesized if it has none.
    func tone(_ key: ToneKey) -> QuantizedAsset {
        tones[key] ?? ToneCache.shared.entry(key).quantized
    }

    /// The sound `ref` as it plays: the one baked, or rounded now; nil when it was not loaded.
    func playedSound(_ ref: SoundRef) -> QuantizedAsset? {
        played[ref] ?? sounds[ref].map(QuantizedAsset.init(quantizing:))
    }

    /// Every tone a mixer of `plan` synthesizes.
    static func toneKeys(for plan: RenderPlan) -> [ToneKey] {
        let tickFrames = Int(Mixer.tickFrames(atRate: plan.rate))
        var keys = [ToneKey(timbre: .tick, pitchHertz: Mixer.countdownPitchHertz, frameCount: tickFrames, rate: plan.rate)]
        if let metronome = plan.metronome {
            keys.append(ToneKey(timbre: .tick, pitchHertz: metronome.pitchHertz, frameCount: tickFrames, rate: plan.rate))
        }
        for cue in plan.cues {
            if case .synth(let timbre) = cue.sound.source {
                keys.append(ToneKey(timbre: timbre, pitchHertz: cue.sound.pitchHertz, frameCount: Int(cue.lengthFrames), rate: plan.rate))
            }
        }
        return keys
    }
}

/// Sums a plan's events, block by block, into the session's mix.
///
/// The mixer walks the clock once, from frame 0: it starts each clip on its frame and plays it to
/// its end, loops each bed between its frames under its envelope, and generates the cues from the
/// breath schedule as it goes, so its memory does not depend on the session's length. Past the
/// plan's last frame it renders silence.
public final class Mixer {
    public let plan: RenderPlan
    private let tally: MixTally
    public let channels: Int
    public private(set) var position: Int64 = 0

    /// A clip resolved to its asset, ready to play.
    struct Voice {
        var asset: Int
        var startFrame: Int64
        var frameCount: Int64
        var releaseFrames: Int64
        var gainLeft: Float
        var gainRight: Float
        /// 0 for the plan's fixed clips, 1 for cues and ticks: with the start, the order voices are
        /// summed in, the same however the blocks fall (float sums depend on their order).
        var source = 0
        /// A bell, which dips under the voice (`RenderPlan.bellDucking`).
        var ducked = false
        /// A cue that rings into a line, and dips from the line on.
        var dip: CueDip?

        var order: (Int64, Int, Int) { (startFrame, source, asset) }
    }

    struct Bed {
        /// Its loop in `loops`.
        var asset: Int
        var offset: Int64
        var event: BedEvent
        /// The source of a generated bed (its asset is unused).
        var noise: (any GeneratedSource)?
    }

    private let assets: [QuantizedAsset]
    private let loops: [QuantizedAsset]
    private var fixed: [Voice] = []
    private var fixedCursor = 0
    private var beds: [Bed] = []
    private var cueAsset: [Int?]  // by PhaseKind ordinal
    private var phases: BreathSchedule.Iterator
    /// Cues and metronome ticks of the phases read so far, in start order.
    private var pendingCues: [Voice] = []
    private var pendingCursor = 0
    private var metronomeAsset = 0
    private var active: [Voice] = []
    /// The duck envelope of the current block, and the next voiced stretch to look at.
    private var duckGains: [Float] = []
    /// A generated bed's noise for the current block.
    private var noiseScratch: [Float] = []
    private var duckCursor = 0
    private var swell: SwellGenerator?
    private var beats: BeatGenerator?
    private var pendingCue: Voice?
    private var started = false

    /// - Parameters:
    ///   - assets: every sound the plan uses, at the plan's rate.
    ///   - startFrame: the first frame to render; a mixer started here renders exactly the frames
    ///     a mixer started at 0 renders from here on.
    public init(plan: RenderPlan, assets: MixAssets, startFrame: Int64 = 0) {
        self.position = startFrame
        self.plan = plan
        self.tally = assets.tally
        self.channels = plan.channels
        var list: [QuantizedAsset] = []
        var index: [SoundRef: Int] = [:]
        func assetIndex(_ ref: SoundRef) -> Int {
            if let i = index[ref] { return i }
            guard let asset = assets.playedSound(ref) else { preconditionFailure("sound \(ref) was not loaded") }
            list.append(asset)
            index[ref] = list.count - 1
            return list.count - 1
        }
        func voice(_ clip: ClipEvent, asset: Int, length: Int) -> Voice {
            let (l, r) = Mixer.panGains(clip.pan, assetChannels: list[asset].channels, outputChannels: plan.channels)
            let g = clip.gain * list[asset].scale
            return Voice(
                asset: asset, startFrame: clip.startFrame, frameCount: min(Int64(length), clip.maximumFrames),
                releaseFrames: clip.releaseFrames, gainLeft: l * g, gainRight: r * g)
        }
        // Synthesized ticks for the countdown and the metronome.
        let tickFrames = Int(Mixer.tickFrames(atRate: plan.rate))
        list.append(assets.tone(.init(timbre: .tick, pitchHertz: Mixer.countdownPitchHertz, frameCount: tickFrames, rate: plan.rate)))
        let countdownAsset = list.count - 1
        if let metronome = plan.metronome {
            list.append(assets.tone(.init(timbre: .tick, pitchHertz: metronome.pitchHertz, frameCount: tickFrames, rate: plan.rate)))
        } else {
            list.append(QuantizedAsset(channels: 1, quantizing: []))
        }
        metronomeAsset = list.count - 1
        for clip in plan.clips {
            let i: Int
            switch clip.sound {
            case .file(let ref): i = assetIndex(ref)
            case .countdown: i = countdownAsset
            case .metronome: i = metronomeAsset
            case .cue: continue
            }
            var v = voice(clip, asset: i, length: list[i].frameCount)
            if clip.layer == .bells, case .file = clip.sound { v.ducked = true }
            fixed.append(v)
        }
        let (beds, loopList) = Self.makeBeds(of: plan, assets: assets)
        self.beds = beds
        cueAsset = Self.appendCueAssets(of: plan, assets: assets, to: &list)
        self.assets = list
        self.loops = loopList
        self.phases = plan.schedule.makeIterator()
        active.reserveCapacity(64)
        pendingCues.reserveCapacity(128)
        if let swell = plan.swell {
            self.swell = SwellGenerator(swell, schedule: plan.schedule, rate: plan.rate, channels: plan.channels, seed: plan.seed)
        }
        if let beats = plan.beats { self.beats = BeatGenerator(beats, channels: plan.channels) }
    }

    /// The plan's beds, each a generated source or a loop of `assets` (each loop once, however
    /// many beds play it), and those loops.
    static func makeBeds(of plan: RenderPlan, assets: MixAssets) -> (beds: [Bed], loops: [QuantizedAsset]) {
        var beds: [Bed] = []
        var looped: [MixAssets.LoopKey: Int] = [:]
        var loopList: [QuantizedAsset] = []
        for bed in plan.beds {
            if let generator = bed.generator {
                beds.append(Bed(asset: 0, offset: 0, event: bed,
                                noise: generator.makeSource(rate: plan.rate, channels: plan.channels, seed: bed.loopOffsetSeed)))
                continue
            }
            let key = MixAssets.LoopKey(sound: bed.sound, seamFrames: bed.seamFrames)
            let i: Int
            if let existing = looped[key] {
                i = existing
            } else {
                // Baked once by the render (MixAssets.bake); baked here only when it was not.
                guard let loop = assets.loops[key] ?? assets.sounds[bed.sound].map({
                    QuantizedAsset(quantizing: LoopedBed.bake($0, seamFrames: Int(bed.seamFrames)))
                }) ?? assets.beds[bed.sound].map({ held in
                    var samples = held.samples
                    return MixAssets.loop(baking: &samples, channels: held.channels, seamFrames: bed.seamFrames)
                }) else { preconditionFailure("sound \(bed.sound) was not loaded") }
                loopList.append(loop)
                i = loopList.count - 1
                looped[key] = i
            }
            let loopLength = max(1, loopList[i].frameCount)
            beds.append(Bed(asset: i, offset: Int64(bed.loopOffsetSeed % UInt64(loopLength)), event: bed))
        }
        return (beds, loopList)
    }

    /// Appends the cues' sounds (synthesized tones, or played sounds) to `list`, and returns where
    /// each is: a row of indices per kind for the session's cues, then one per segment with its own.
    static func appendCueAssets(of plan: RenderPlan, assets: MixAssets, to list: inout [QuantizedAsset]) -> [Int?] {
        var cueAsset = [Int?](repeating: nil, count: PhaseKind.allCases.count * (plan.schedule.segments.count + 1))
        for cue in plan.cues {
            let asset: QuantizedAsset
            switch cue.sound.source {
            case .synth(let timbre):
                asset = assets.tone(.init(timbre: timbre, pitchHertz: cue.sound.pitchHertz, frameCount: Int(cue.lengthFrames), rate: plan.rate))
            case .sound(let ref):
                asset = assets.playedSound(ref) ?? QuantizedAsset(channels: 1, quantizing: [])
            }
            list.append(asset)
            cueAsset[((cue.segment ?? -1) + 1) * PhaseKind.allCases.count + PhaseKind.allCases.firstIndex(of: cue.kind)!] = list.count - 1
        }
        return cueAsset
    }

    /// The pitch of the countdown's ticks.
    static let countdownPitchHertz = 1500.0

    /// The synthesized countdown and metronome ticks: 80 ms, cut with a 5-ms release.
    static let tickLength = SessionTime(milliseconds: 80)

    /// The frames a synthesized tick lasts at `rate` (at least 2).
    static func tickFrames(atRate rate: Int) -> Int64 { max(2, tickLength.frameCount(atRate: rate)) }
    static let tickRelease = SessionTime(milliseconds: 5)

    /// Gains for the left and right output channels: constant power for mono sources, 1 and 1 at the centre.
    static func panGains(_ pan: Float, assetChannels: Int, outputChannels: Int) -> (Float, Float) {
        let p = max(-1, min(1, pan))
        if outputChannels == 1 { return (1, 1) }
        if assetChannels == 1 {
            // Constant power, 1 on each side at the centre: a mono sound levelled as it plays on
            // two speakers (dual mono) keeps its level in a stereo output, at any position.
            let angle = Double(p + 1) * .pi / 4
            return (Float(2.0.squareRoot() * cos(angle)), Float(2.0.squareRoot() * sin(angle)))
        }
        return (min(1, 1 - p), min(1, 1 + p))
    }

    /// The next cue or metronome tick, reading the schedule one phase at a time.
    private func nextCue() -> Voice? {
        while pendingCursor >= pendingCues.count {
            pendingCues.removeAll(keepingCapacity: true)
            pendingCursor = 0
            guard let phase = phases.next() else { return nil }
            let row = plan.ownCueSegments.contains(phase.segment) ? phase.segment + 1 : 0
            if let event = plan.cueEvent(for: phase), let asset = cueAsset[row * PhaseKind.allCases.count + PhaseKind.allCases.firstIndex(of: phase.kind)!] {
                let (l, r) = Mixer.panGains(event.pan, assetChannels: assets[asset].channels, outputChannels: channels)
                let length = min(Int64(assets[asset].frameCount), event.maximumFrames)
                let g = event.gain * assets[asset].scale
                pendingCues.append(Voice(
                    asset: asset, startFrame: event.startFrame, frameCount: length,
                    releaseFrames: min(event.releaseFrames, length), gainLeft: l * g, gainRight: r * g, dip: event.dip))
            }
            if let metronome = plan.metronome, metronome.phases.contains(phase.kind) {
                let gain = Float(decibelsToGain(metronome.gainDecibels)) * assets[metronomeAsset].scale
                let (l, r) = Mixer.panGains(0, assetChannels: 1, outputChannels: channels)
                var t = phase.start + .seconds(1)
                let end = phase.end.frame(atRate: plan.rate)
                while t < phase.end {
                    let start = t.frame(atRate: plan.rate)
                    let length = min(Int64(assets[metronomeAsset].frameCount), end - start)
                    pendingCues.append(Voice(
                        asset: metronomeAsset, startFrame: start, frameCount: length,
                        releaseFrames: min(Mixer.tickRelease.frameCount(atRate: plan.rate), length),
                        gainLeft: l * gain, gainRight: r * gain))
                    t += .seconds(1)
                }
            }
        }
        defer { pendingCursor += 1 }
        return pendingCues[pendingCursor]
    }

    /// Renders the next `frameCount` frames of the mix into `out` (interleaved, `channels` wide).
    public func render(into out: UnsafeMutablePointer<Float>, frameCount: Int) {
        tally.add(frameCount, layersApart: plan.isLayersApart)
        if !started {
            started = true
            pendingCue = nextCue()
        }
        let blockStart = position
        let blockEnd = position + Int64(frameCount)
        out.initialize(repeating: 0, count: frameCount * channels)
        if !beds.isEmpty {
            let ducked = fillDuckGains(blockStart: blockStart, frameCount: frameCount)
            for bed in beds where bed.event.startFrame < blockEnd && bed.event.endFrame > blockStart {
                mixBed(bed, into: out, blockStart: blockStart, blockEnd: blockEnd, ducked: ducked)
            }
        }
        swell?.render(into: out, blockStart: blockStart, frameCount: frameCount, totalFrames: plan.totalFrames)
        beats?.render(into: out, blockStart: blockStart, frameCount: frameCount)
        while fixedCursor < fixed.count, fixed[fixedCursor].startFrame < blockEnd {
            activate(fixed[fixedCursor])
            fixedCursor += 1
        }
        while var cue = pendingCue, cue.startFrame < blockEnd {
            cue.source = 1
            activate(cue)
            pendingCue = nextCue()
        }

        var i = 0
        while i < active.count {
            let voice = active[i]
            mixVoice(voice, into: out, blockStart: blockStart, blockEnd: blockEnd)
            if voice.startFrame + voice.frameCount <= blockEnd {
                active.remove(at: i)
            } else {
                i += 1
            }
        }
        position = blockEnd
    }

    /// Adds a voice to those playing, in summing order (after any of the same order, so the order
    /// is the same however the blocks fall).
    private func activate(_ voice: Voice) {
        let key = voice.order
        let index = active.firstIndex { $0.order > key } ?? active.count
        active.insert(voice, at: index)
    }

    private func mixVoice(_ voice: Voice, into out: UnsafeMutablePointer<Float>, blockStart: Int64, blockEnd: Int64) {
        let from = max(voice.startFrame, blockStart)
        let to = min(voice.startFrame + voice.frameCount, blockEnd, max(plan.totalFrames, blockStart))
        guard from < to else { return }
        let asset = assets[voice.asset]
        let ac = asset.channels, oc = channels
        let releaseStart = voice.frameCount - voice.releaseFrames
        let duck = plan.bellDucking
        var stretch = voice.ducked ? duck.firstStretch(endingAfter: from) : duck.stretches.count
        let dip = voice.dip
        // Up to its release, an undipped voice clear of the bells' ducking plays at a gain of 1:
        // the loop below multiplies by exactly 1 there, so these frames are added without it.
        let plainEnd = dip == nil && stretch == duck.stretches.count ? min(to, voice.startFrame + releaseStart) : from
        asset.samples.withUnsafeBufferPointer { src in
            if plainEnd > from {
                Self.addPlain(src.baseAddress! + Int(from - voice.startFrame) * ac, channels: ac, count: Int(plainEnd - from),
                              to: out + Int(from - blockStart) * oc, channels: oc, gains: (voice.gainLeft, voice.gainRight))
            }
            for frame in max(from, plainEnd)..<to {
                let k = frame - voice.startFrame
                var g: Float = 1
                if k >= releaseStart { g = Ramp.release(Int(k - releaseStart), length: Int(voice.releaseFrames)) }
                if let dip { g *= dip.gain(at: frame) }
                if stretch < duck.stretches.count {
                    while stretch < duck.stretches.count, duck.stretches[stretch].end + duck.releaseFrames <= frame { stretch += 1 }
                    if stretch < duck.stretches.count, frame >= duck.stretches[stretch].start - duck.attackFrames {
                        g *= duck.gain(at: frame, in: duck.stretches[stretch])
                    }
                }
                let o = Int(frame - blockStart) * oc
                let s = Int(k) * ac
                if oc == 2 {
                    let l = Float(src[s]), r = ac == 2 ? Float(src[s + 1]) : l
                    out[o] += l * voice.gainLeft * g
                    out[o + 1] += r * voice.gainRight * g
                } else {
                    let x = ac == 2 ? (Float(src[s]) + Float(src[s + 1])) * 0.5 : Float(src[s])
                    out[o] += x * voice.gainLeft * g
                }
            }
        }
    }

    /// Adds `count` frames of a voice's samples at `src` to `out` at its left and right gains: what
    /// `mixVoice`'s frame loop adds at a gain of 1, a loop the compiler makes vectors of.
    private static func addPlain(_ src: UnsafePointer<Int16>, channels ac: Int, count: Int, to out: UnsafeMutablePointer<Float>,
                                 channels oc: Int, gains: (left: Float, right: Float)) {
        let gl = gains.left, gr = gains.right
        switch (ac, oc) {
        case (2, 2):
            for i in 0..<count {
                out[2 * i] += Float(src[2 * i]) * gl
                out[2 * i + 1] += Float(src[2 * i + 1]) * gr
            }
        case (1, 2):
            for i in 0..<count {
                let x = Float(src[i])
                out[2 * i] += x * gl
                out[2 * i + 1] += x * gr
            }
        case (2, _):
            for i in 0..<count { out[i] += (Float(src[2 * i]) + Float(src[2 * i + 1])) * 0.5 * gl }
        default:
            for i in 0..<count { out[i] += Float(src[i]) * gl }
        }
    }

    /// Fills `duckGains` for this block; false when the whole block is undimmed.
    private func fillDuckGains(blockStart: Int64, frameCount: Int) -> Bool {
        let duck = plan.ducking
        let blockEnd = blockStart + Int64(frameCount)
        while duckCursor < duck.stretches.count, duck.stretches[duckCursor].end + duck.releaseFrames <= blockStart {
            duckCursor += 1
        }
        guard duckCursor < duck.stretches.count, duck.stretches[duckCursor].start - duck.attackFrames < blockEnd else {
            return false
        }
        if duckGains.count < frameCount { duckGains = [Float](repeating: 1, count: max(frameCount, 4096)) }
        // Written through a local: a stored array written a frame at a time is checked for
        // exclusive access at each write.
        var gains = duckGains
        duckGains = []
        var k = duckCursor
        gains.withUnsafeMutableBufferPointer { gains in
            for f in 0..<frameCount {
                let frame = blockStart + Int64(f)
                while k < duck.stretches.count, duck.stretches[k].end + duck.releaseFrames <= frame { k += 1 }
                if k < duck.stretches.count, frame >= duck.stretches[k].start - duck.attackFrames {
                    gains[f] = duck.gain(at: frame, in: duck.stretches[k])
                } else {
                    gains[f] = 1
                }
            }
        }
        duckGains = gains
        return true
    }

    private func mixBed(_ bed: Bed, into out: UnsafeMutablePointer<Float>, blockStart: Int64, blockEnd: Int64, ducked: Bool) {
        if let noise = bed.noise {
            mixNoiseBed(bed.event, noise, into: out, blockStart: blockStart, blockEnd: blockEnd, ducked: ducked)
            return
        }
        let asset = loops[bed.asset]
        let loopLength = Int64(asset.frameCount)
        guard loopLength > 0 else { return }
        let event = bed.event
        let from = max(event.startFrame, blockStart)
        let to = min(event.endFrame, blockEnd, max(plan.totalFrames, blockStart))
        guard from < to else { return }
        let ac = asset.channels, oc = channels
        let (gl, gr) = Mixer.panGains(0, assetChannels: ac, outputChannels: oc)
        let fadeInEnd = event.startFrame + event.fadeInFrames
        let fadeOutStart = event.endFrame - event.fadeOutFrames
        asset.samples.withUnsafeBufferPointer { src in
            duckGains.withUnsafeBufferPointer { duck in
                var k = (bed.offset + from - event.startFrame) % loopLength
                var frame = from
                while frame < to {
                    // A run of frames up to the loop's end or a fade's edge: in a fade, each
                    // frame's gain is worked out in full; between fades, only the duck changes.
                    var end = min(to, frame + (loopLength - k))
                    let fading = frame < fadeInEnd || frame >= fadeOutStart
                    if frame < fadeInEnd { end = min(end, fadeInEnd) } else if frame < fadeOutStart { end = min(end, fadeOutStart) }
                    let o = Int(frame - blockStart), n = Int(end - frame), s = Int(k)
                    if fading {
                        var fades = event.fadeRuns
                        for j in 0..<n {
                            let at = frame + Int64(j)
                            var g = event.gain
                            if at < fadeInEnd { g *= fades.in.value(at: Double(at - event.startFrame) + 0.5) }
                            if at >= fadeOutStart { g *= fades.out.value(at: Double(event.endFrame - at) - 0.5) }
                            if ducked { g *= duck[o + j] }
                            Self.add(src, s + j, ac, into: out, o + j, oc, gl, gr, g * asset.scale)
                        }
                    } else if ducked {
                        let g = event.gain * asset.scale
                        for j in 0..<n { Self.add(src, s + j, ac, into: out, o + j, oc, gl, gr, g * duck[o + j]) }
                    } else {
                        let g = event.gain * asset.scale
                        for j in 0..<n { Self.add(src, s + j, ac, into: out, o + j, oc, gl, gr, g) }
                    }
                    frame = end
                    k += Int64(n)
                    if k == loopLength { k = 0 }
                }
            }
        }
    }

    /// Adds frame `s` of a sound of `ac` channels to frame `o` of an output of `oc`, at pan gains
    /// `gl`, `gr` and gain `g`.
    @inline(__always)
    private static func add(_ src: UnsafeBufferPointer<Int16>, _ s: Int, _ ac: Int, into out: UnsafeMutablePointer<Float>, _ o: Int,
                            _ oc: Int, _ gl: Float, _ gr: Float, _ g: Float) {
        if oc == 2 {
            let l = Float(src[s * ac]), r = ac == 2 ? Float(src[s * ac + 1]) : l
            out[o * 2] += l * gl * g
            out[o * 2 + 1] += r * gr * g
        } else {
            out[o] += (ac == 2 ? (Float(src[s * 2]) + Float(src[s * 2 + 1])) * 0.5 : Float(src[s])) * g
        }
    }
}

extension Mixer {
    /// Adds a generated noise bed under its fades and the duck, frame by frame.
    func mixNoiseBed(_ event: BedEvent, _ noise: any GeneratedSource, into out: UnsafeMutablePointer<Float>, blockStart: Int64, blockEnd: Int64,
                     ducked: Bool) {
        let from = max(event.startFrame, blockStart)
        let to = min(event.endFrame, blockEnd, max(plan.totalFrames, blockStart))
        guard from < to else { return }
        let n = Int(to - from), oc = channels
        if noiseScratch.count < n * oc { noiseScratch = [Float](repeating: 0, count: max(n * oc, 4096 * oc)) }
        let fadeInEnd = event.startFrame + event.fadeInFrames
        let fadeOutStart = event.endFrame - event.fadeOutFrames
        noiseScratch.withUnsafeMutableBufferPointer { buffer in
            let source = buffer.baseAddress!
            noise.render(into: source, from: from, frameCount: n)
            duckGains.withUnsafeBufferPointer { duck in
                /// Frames `range` at the bed's gain under its fades and the duck, frame by frame.
                func faded(_ range: Range<Int64>) {
                    guard !range.isEmpty else { return }
                    var fades = event.fadeRuns
                    for at in range {
                        var g = event.gain
                        if at < fadeInEnd { g *= fades.in.value(at: Double(at - event.startFrame) + 0.5) }
                        if at >= fadeOutStart { g *= fades.out.value(at: Double(event.endFrame - at) - 0.5) }
                        if ducked { g *= duck[Int(at - blockStart)] }
                        let o = Int(at - blockStart) * oc, j = Int(at - from) * oc
                        for c in 0..<oc { out[o + c] += source[j + c] * g }
                    }
                }
                // Clear of both fades, a frame's gain is the bed's (times the duck's): the same
                // products as `faded` makes, with nothing to test a frame.
                let plainFrom = max(from, fadeInEnd), plainTo = min(to, fadeOutStart)
                guard plainFrom < plainTo else { return faded(from..<to) }
                faded(from..<plainFrom)
                let o = Int(plainFrom - blockStart), count = Int(plainTo - plainFrom)
                // From pointers to the run's first frame, so the loops index from 0 (the compiler
                // makes vectors of them).
                let into = out + o * oc, bed = source + Int(plainFrom - from) * oc
                if ducked {
                    for f in 0..<count {
                        let g = event.gain * duck[o + f]
                        for c in 0..<oc { into[f * oc + c] += bed[f * oc + c] * g }
                    }
                } else {
                    let g = event.gain
                    for i in 0..<(count * oc) { into[i] += bed[i] * g }
                }
                faded(plainTo..<to)
            }
        }
    }
}
