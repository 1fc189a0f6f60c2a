import Foundation
import MedrenderCore
import Testing

/// A session of cues only, on a fractional pattern.
func cueSession(_ pattern: BreathPattern, settle: SessionTime = SessionTime(milliseconds: 1234),
                closing: SessionTime = .seconds(3), ramp: PatternRamp? = nil) -> Session {
    Session(name: "test", segments: [PatternSegment(pattern: pattern, ramp: ramp)], settle: settle, closing: closing,
            master: MasterSettings(fadeIn: .zero, fadeOut: .seconds(1)))
}

/// `session` with a pure tone on every phase: tones that stop at the end of their phase, so every
/// cue starts on silence. (A bell or bowl rings on into the next phase; its onset is placed the
/// same way, by the phase's frame.)
func withCutCues(_ session: Session) -> Session {
    var session = session
    for kind in PhaseKind.allCases {
        session.cues[kind] = CueSound(source: .synth(.pure), pitchHertz: 440 + 50 * Double(PhaseKind.allCases.firstIndex(of: kind)!))
    }
    return session
}

@Suite struct RenderPlanTests {
    /// No two sections (chapters, markers) start on one frame: a named first segment takes the
    /// place of the generic "Breathing", and "Breathing" that of an empty settle.
    @Test(arguments: [SessionTime.seconds(5), .zero])
    func sectionsNeverShareAFrame(settle: SessionTime) throws {
        var session = cueSession(BreathPattern(milliseconds: 4000, 0, 4000, 0), settle: settle)
        session.segments = [PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 4000, 0), span: .cycles(2), name: "Warm-up"),
                            PatternSegment(pattern: BreathPattern(milliseconds: 4000, 0, 6000, 0), name: "Slow")]
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 48000, length: .cycles(4)))
        let names = plan.sections.map(\.name)
        #expect(names == (settle == .zero ? ["Warm-up", "Slow", "Closing"] : ["Settle", "Warm-up", "Slow", "Closing"]), "\(names)")
        #expect(Set(plan.sections.map(\.frame)).count == plan.sections.count)
        #expect(plan.sections.first?.frame == 0)
        let single = try RenderPlan(session: cueSession(BreathPattern(milliseconds: 4000, 0, 4000, 0), settle: .zero),
                                    options: RenderOptions(rate: 48000, length: .cycles(2)))
        #expect(single.sections.map(\.name) == ["Breathing", "Closing"])
    }

    @Test(arguments: [8000, 22050, 44100, 48000, 96000])
    func totalIsExactlyRoundedMinutesTimesRate(rate: Int) throws {
        let session = cueSession(BreathPattern(milliseconds: 4000, 4000, 4000, 4000))
        for minutes in [1.0, 2.5, 15, 0.7] {
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(SessionTime(minutes: minutes)!)))
            #expect(plan.totalFrames == Int64((minutes * 60 * Double(rate)).rounded()))
            // No cycle is cut: the closing starts after the last whole cycle and is at least its length.
            #expect(plan.total - plan.schedule.end >= session.closing)
            #expect(plan.total - plan.schedule.end < session.closing + BreathPattern(milliseconds: 4000, 4000, 4000, 4000).cycleLength)
        }
    }

    @Test func cyclesMakeTheFileSettlePlusCyclesPlusClosing() throws {
        let session = cueSession(BreathPattern(milliseconds: 5500, 0, 5500, 0))
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 44100, length: .cycles(10)))
        #expect(plan.total == SessionTime(milliseconds: 1234) + .seconds(110) + .seconds(3))
        #expect(plan.schedule.cycleCount == 10)
    }

    @Test func cueMarksAreRoundedExactTimes() throws {
        let session = cueSession(BreathPattern(milliseconds: 4700, 300, 6300, 1100))
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 22050, length: .duration(.seconds(600))))
        var expectedMs: Int64 = 1234
        let lengths: [Int64] = [4700, 300, 6300, 1100]
        for (i, mark) in plan.cueMarks.enumerated() {
            #expect(mark.time.milliseconds == expectedMs)
            // Independent: t × rate in Double, exact for these magnitudes, rounded half up.
            #expect(mark.frame == Int64((Double(expectedMs) * 22.05).rounded(.toNearestOrAwayFromZero)))
            expectedMs += lengths[i % 4]
        }
    }

    @Test func threeHourCoherentLastCueIsWhereExactArithmeticPutsIt() throws {
        let session = cueSession(BreathPattern(milliseconds: 5500, 0, 5500, 0), settle: .seconds(20), closing: .seconds(30))
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 44100, length: .duration(.seconds(3 * 3600))))
        let marks = Array(plan.cueMarks)
        let last = try #require(marks.last)
        // (10800 − 50) / 11 = 977.27…: 977 cycles; the last exhale starts at 20 + 976 × 11 + 5.5 s.
        #expect(plan.schedule.cycleCount == 977)
        #expect(last.kind == .exhale)
        #expect(last.time.milliseconds == 20_000 + 976 * 11_000 + 5_500)
        #expect(last.frame == (20_000 + 976 * 11_000 + 5_500) * 441 / 10)
    }

    /// Only a session shorter than one cycle is too short: settle and closing give way first.
    @Test func tooShortSessionSaysWhatItNeeds() throws {
        let session = cueSession(BreathPattern(milliseconds: 4000, 4000, 4000, 4000), settle: .seconds(20), closing: .seconds(30))
        #expect(throws: PlanError.self) {
            try RenderPlan(session: session, options: RenderOptions(length: .duration(.seconds(15))))
        }
        do {
            _ = try RenderPlan(session: session, options: RenderOptions(length: .duration(.seconds(15))))
        } catch {
            #expect(error.description.contains("at least 16 s"), "\(error.description)")
        }
        // One minute: settle and closing take a third, in proportion (8 s and 12 s), two cycles play.
        let plan = try RenderPlan(session: session, options: RenderOptions(length: .duration(.seconds(60))))
        #expect(plan.schedule.start == .seconds(8))
        #expect(plan.schedule.cycleCount == 2)
        #expect(plan.totalFrames == 60 * 48000)
        // Sixteen seconds: one cycle and nothing else.
        let least = try RenderPlan(session: session, options: RenderOptions(length: .duration(.seconds(16))))
        #expect(least.schedule.start == .zero && least.schedule.cycleCount == 1)
    }

    @Test func introLongerThanSettleIsAnErrorNamingTheField() {
        var session = cueSession(BreathPattern(milliseconds: 4000, 0, 4000, 0), settle: .seconds(5))
        session.voice.intro = SoundRef("voice-intro")
        let frames: [SoundRef: SoundFacts] = [SoundRef("voice-intro"): SoundFacts(frameCount: 48000 * 8)]
        do {
            _ = try RenderPlan(session: session, options: RenderOptions(length: .duration(.seconds(120))), sounds: frames)
            Issue.record("expected an error")
        } catch {
            #expect(error == .clipDoesNotFit(role: "intro voice", sound: SoundRef("voice-intro"), clip: .seconds(8),
                                             available: .seconds(3), field: "settle"))
            #expect(error.description.contains("'settle' longer by 5 s"))
        }
    }
}

@Suite struct MixerTests {
    /// Renders the mix of `plan` in blocks of `block` frames.
    func mix(_ plan: RenderPlan, block: Int = 4096, assets: MixAssets = MixAssets(sounds: [:])) -> [Float] {
        let mixer = Mixer(plan: plan, assets: assets)
        var out = [Float](repeating: 0, count: Int(plan.totalFrames) * plan.channels)
        var done = 0
        let total = Int(plan.totalFrames)
        out.withUnsafeMutableBufferPointer { p in
            while done < total {
                let n = min(block, total - done)
                mixer.render(into: p.baseAddress! + done * plan.channels, frameCount: n)
                done += n
            }
        }
        return out
    }

    static let patterns: [(BreathPattern, PatternRamp?)] = [
        (BreathPattern(milliseconds: 4700, 300, 6300, 1100), nil),
        (BreathPattern(milliseconds: 5500, 0, 5500, 0), nil),
        (BreathPattern(milliseconds: 1000, 500, 3000, 0, topUp: 500), nil),
        (BreathPattern(milliseconds: 4000, 0, 4000, 0),
         PatternRamp(target: BreathPattern(milliseconds: 4000, 0, 8000, 0), span: .cycles(5), curve: .easeInOut)),
    ]

    @Test(arguments: [8000, 22050, 44100, 48000, 96000], 0..<patterns.count)
    func everyCueStartsOnItsFrame(rate: Int, patternIndex: Int) throws {
        let (pattern, ramp) = Self.patterns[patternIndex]
        let session = withCutCues(cueSession(pattern, ramp: ramp))
        let plan = try RenderPlan(
            session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(75)), layers: [.cues]))
        // An odd block size puts block edges all over the cues.
        let audio = mix(plan, block: 1001)
        let marks = Array(plan.cueMarks)
        #expect(marks.count >= 10)
        for mark in marks {
            let f = Int(mark.frame)
            #expect(audio[(f - 1) * 2] == 0 && audio[(f - 1) * 2 + 1] == 0, "frame before cue at \(f) is silent")
            #expect(audio[f * 2] != 0 || audio[f * 2 + 1] != 0, "cue at \(f) sounds on its frame")
        }
        // The first non-zero sample of the file is the first cue.
        let firstNonZero = audio.firstIndex { $0 != 0 }.map { $0 / 2 }
        #expect(firstNonZero == marks.first.map { Int($0.frame) })
    }

    @Test func blockSizeDoesNotChangeTheMix() throws {
        let session = cueSession(BreathPattern(milliseconds: 4700, 300, 6300, 1100))
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 22050, length: .duration(.seconds(40))))
        // Edge cases: one frame per block, a prime, a power of two.
        let reference = mix(plan, block: 4096)
        #expect(mix(plan, block: 1) == reference)
        #expect(mix(plan, block: 997) == reference)
    }

    /// Every kind of layer at once: cues, a metronome, a noise swell, two beds crossfading, an
    /// intro, prompts, a timed clip, an outro, start, interval, countdown and end bells.
    static func everyLayerSession(swell: BreathSwell.Kind) -> (Session, [SoundRef: AudioAsset]) {
        var session = cueSession(BreathPattern(milliseconds: 4700, 300, 6300, 1100), settle: .seconds(6))
        session.ambience = [AmbienceBed(sound: SoundRef("bed"), seam: .seconds(1)), AmbienceBed(sound: SoundRef("bed2"), seam: .seconds(1))]
        session.ambienceCrossfade = .seconds(4)
        session.voice.clips = [TimedClip(sound: SoundRef("word"), at: .seconds(16))]
        session.voice.intro = SoundRef("word")
        session.voice.introAt = .zero
        session.voice.outro = SoundRef("word")
        session.voice.prompts = [.inhale: SoundRef("short"), .exhale: SoundRef("short")]
        session.metronome = Metronome()
        session.swell = BreathSwell(kind: swell, gainDecibels: -20)
        session.bells = BellSettings(start: SoundRef("short"), end: SoundRef("short"))
        session.bells.every = .seconds(12)
        session.bells.countdownSeconds = 3
        var g = SeededGenerator(seed: 9)
        let sounds = [SoundRef("bed"): AudioAsset(channels: 2, samples: (0..<(8000 * 6)).map { _ in g.nextUnit() - 0.5 }),
                      SoundRef("bed2"): AudioAsset(channels: 1, samples: (0..<(8000 * 5)).map { _ in g.nextUnit() - 0.5 }),
                      SoundRef("word"): AudioAsset(channels: 1, samples: (0..<8000 * 3).map { Float(sin(Double($0) * 0.05)) }),
                      SoundRef("short"): AudioAsset(channels: 1, samples: (0..<2000).map { Float(sin(Double($0) * 0.11)) * 0.5 })]
        return (session, sounds)
    }

    @Test func bakedAssetsMixAsAssetsMadeByEachMixer() throws {
        let (session, sounds) = Self.everyLayerSession(swell: .tone)
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        // As the session has them, and with a bed's sound also played once as a clip.
        var both = session
        both.voice.clips.append(TimedClip(sound: SoundRef("bed"), at: .seconds(20)))
        for (session, kept) in [(session, ["word", "short"]), (both, ["word", "short", "bed"])] {
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(46))), sounds: facts)
            var baked = MixAssets(sounds: sounds, facts: facts)
            baked.bake(for: plan)
            // Every synthesized cue and tick is baked: the cues' tones and the countdown's tick.
            let synthesized = plan.cues.filter { if case .synth = $0.sound.source { return true } else { return false } }
            #expect(!synthesized.isEmpty)
            #expect(baked.tones.count >= Set(synthesized.map { "\($0.sound.source)\($0.sound.pitchHertz)\($0.lengthFrames)" }).count + 1)
            // Both beds are baked to loops, the sounds played as they are rounded to 16 bits,
            // and every sound in floats is let go.
            #expect(baked.loops.count == 2)
            #expect(Set(baked.played.keys) == Set(kept.map(SoundRef.init)))
            #expect(baked.sounds.isEmpty)
            let unbaked = MixAssets(sounds: sounds, facts: facts)
            #expect(unbaked.tones.isEmpty && unbaked.loops.isEmpty)
            #expect(mix(plan, assets: baked) == mix(plan, assets: unbaked))
        }
    }

    /// A bed's sound loaded only as it plays (rounded to 16 bits, as a clip's is: a session whose
    /// beds the render did not know of) is still looped: its loop is baked from those samples and
    /// mixes as the same samples given in floats.
    @Test func aBedLoadedOnlyAsItPlaysIsStillLooped() throws {
        let (session, sounds) = Self.everyLayerSession(swell: .tone)
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(46))), sounds: facts)
        let beds = [SoundRef("bed"), SoundRef("bed2")]
        var played: [SoundRef: QuantizedAsset] = [:]
        var floats = sounds
        for ref in beds {
            let rounded = QuantizedAsset(quantizing: sounds[ref]!)
            played[ref] = rounded
            floats[ref] = AudioAsset(channels: rounded.channels, samples: rounded.floats)
        }
        var onlyPlayed = MixAssets(sounds: sounds.filter { !beds.contains($0.key) }, played: played, facts: facts)
        onlyPlayed.bake(for: plan)
        #expect(Set(onlyPlayed.loops.keys.map(\.sound)) == Set(beds))
        #expect(onlyPlayed.sounds.isEmpty)
        #expect(Set(onlyPlayed.played.keys).isDisjoint(with: beds), "a bed that does not play as it is is held once, as its loop")
        #expect(mix(plan, assets: onlyPlayed) == mix(plan, assets: MixAssets(sounds: floats, facts: facts)))
    }

    @Test(arguments: [0, 1, 4095, 4096, 4097, 8000 * 17 + 3, 8000 * 33 + 11], [BreathSwell.Kind.noise, .tone])
    func mixerStartedMidwayRendersWhatTheWholeMixHasThere(start: Int, swell: BreathSwell.Kind) throws {
        let (session, sounds) = Self.everyLayerSession(swell: swell)
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(46))), sounds: facts)
        #expect(Set(plan.layers) == Set(Layer.allCases))
        var assets = MixAssets(sounds: sounds, facts: facts)
        assets.bake(for: plan)
        let whole = mix(plan, block: 4096, assets: assets)
        let mixer = Mixer(plan: plan, assets: assets, startFrame: Int64(start))
        let rest = Int(plan.totalFrames) - start
        var part = [Float](repeating: 0, count: rest * 2)
        part.withUnsafeMutableBufferPointer { p in
            var done = 0
            while done < rest {
                let n = min(1000, rest - done)
                mixer.render(into: p.baseAddress! + done * 2, frameCount: n)
                done += n
            }
        }
        // Exactly: not one sample differs.
        let tail = Array(whole[(start * 2)...])
        let differing = zip(part, tail).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) samples differ from frame \(start) on")
        #expect(tail.contains { $0 != 0 })
    }

    @Test func aPureCueNeverSoundsIntoTheNextPhase() throws {
        // Phases of 50 ms with a 600 ms cue: each cue is cut and ends on exact zero inside its phase.
        var session = cueSession(BreathPattern(milliseconds: 50, 0, 950, 0))
        session.cues[.inhale] = CueSound(source: .synth(.pure), pitchHertz: 660)
        session.cues[.exhale] = nil
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 48000, length: .duration(.seconds(10)), layers: [.cues]))
        let audio = mix(plan)
        for mark in plan.cueMarks where mark.kind == .inhale {
            let end = Int((mark.time + mark.length).frame(atRate: 48000))
            #expect(audio[(end - 1) * 2] == 0)
            #expect(audio[(end * 2)..<((end + 1000) * 2)].allSatisfy { $0 == 0 })
        }
    }

    @Test(arguments: [CueTimbre.bell, .bowl])
    func aStruckCueRingsOutIntoTheNextPhaseAndEndsOnZero(timbre: CueTimbre) throws {
        // A 100-ms inhale whose bell or bowl rings on through the silent exhale after it.
        var session = cueSession(BreathPattern(milliseconds: 100, 0, 5900, 0))
        session.cues[.inhale] = CueSound(source: .synth(timbre), pitchHertz: 440)
        session.cues[.exhale] = nil
        let rate = 48000
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(30)), layers: [.cues]))
        let audio = mix(plan, block: 1001)
        let ring = Int(timbre.ringOut!.frame(atRate: rate))
        let marks = plan.cueMarks.filter { $0.kind == .inhale }
        #expect(marks.count >= 3)
        for mark in marks {
            let start = Int(mark.frame)
            let phaseEnd = Int((mark.time + mark.length).frame(atRate: rate))
            func peak(_ range: Range<Int>) -> Float { range.map { abs(audio[$0 * 2]) }.max() ?? 0 }
            let loudest = peak(start..<(start + rate / 10))
            // Still sounding well after its phase ended...
            #expect(peak(phaseEnd..<(phaseEnd + rate / 10)) > loudest * 0.3)
            // ...until it has fallen by 55 dB, then exact zero from its last frame on.
            #expect(peak((start + ring - rate / 20)..<(start + ring)) < loudest * Float(decibelsToGain(-55)))
            #expect(audio[((start + ring) * 2)..<((start + ring + 1000) * 2)].allSatisfy { $0 == 0 })
            // No click anywhere: no step between neighbours larger than the tone itself makes.
            let steps = (start + 1..<(start + ring)).map { abs(audio[$0 * 2] - audio[($0 - 1) * 2]) }
            #expect(steps.max()! < loudest * 0.2)
        }
    }

    @Test func bedLoopsBetweenItsFramesWithFades() throws {
        var session = cueSession(BreathPattern(milliseconds: 4000, 0, 4000, 0))
        session.ambience = [AmbienceBed(sound: SoundRef("bed"), seam: .zero)]
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(60)), layers: [.ambience]),
                                  sounds: [SoundRef("bed"): SoundFacts(frameCount: 8000 * 3)])
        let bed = AudioAsset(channels: 1, samples: [Float](repeating: 0.5, count: 8000 * 3))
        let audio = mix(plan, assets: MixAssets(sounds: [SoundRef("bed"): bed]))
        // Constant material with no seam: the loop is a constant 0.5 in the middle (a mono sound
        // at the centre plays at its level on both sides), faded at the ends.
        let middle = audio[(30 * 8000 * 2)]
        #expect(abs(middle - 0.5) < 1e-6)
        #expect(audio[30 * 8000 * 2 + 1] == middle)
        #expect(abs(audio[0]) < middle * 0.01)
        #expect(audio.count == 60 * 8000 * 2)
    }
}

@Suite struct MasterFadesTests {
    @Test func fadeInStartsAboveZeroAndFadeOutEndsOnZero() throws {
        var session = cueSession(BreathPattern(milliseconds: 4000, 0, 4000, 0))
        session.master.fadeIn = .seconds(1)
        session.master.fadeOut = .seconds(2)
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(30))))
        let fades = MasterFades(plan: plan)
        #expect(fades.gain(at: 0) > 0)
        #expect(fades.gain(at: 7999) == 1)
        #expect(fades.gain(at: 15000) == 1)
        #expect(fades.gain(at: plan.totalFrames - 1) == 0)
        #expect(fades.gain(at: plan.totalFrames - 16001) == 1)
        #expect(fades.gain(at: plan.totalFrames - 8000) < 1)
    }
}
