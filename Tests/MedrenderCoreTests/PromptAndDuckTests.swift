import Foundation
import MedrenderCore
import Testing

/// Voice prompts and the cues and ambience around them: the cue plays under its prompt, close
/// dips merge into one, and the first dip never cuts into the ambience's fade-in.
@Suite struct PromptAndDuckTests {
    let rate = 8000

    /// Prompts on every phase of the first cycles, with a constant bed under them.
    func promptedSession(_ pattern: BreathPattern) -> Session {
        var session = simpleSession(pattern)
        session.voice.prompts = [.inhale: SoundRef("in"), .holdIn: SoundRef("hold"), .exhale: SoundRef("out"), .holdOut: SoundRef("hold")]
        session.voice.promptCycles = 3
        session.ambience = [AmbienceBed(sound: SoundRef("bed"), seam: .zero)]
        return session
    }

    var sounds: [SoundRef: AudioAsset] {
        let word = AudioAsset(channels: 1, samples: [Float](repeating: 0, count: rate * 6 / 10))
        return [SoundRef("in"): word, SoundRef("hold"): word, SoundRef("out"): word,
                SoundRef("bed"): AudioAsset(channels: 1, samples: [Float](repeating: 0.5, count: rate * 4))]
    }

    func plan(_ session: Session, seconds: Int64 = 60, layers: Set<Layer> = [.ambience, .voice, .cues]) throws -> RenderPlan {
        try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(seconds)), layers: layers),
                       sounds: sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) })
    }

    @Test func theCueOfAPromptedPhasePlaysUnderThePrompt() throws {
        var session = promptedSession(BreathPattern(milliseconds: 4000, 4000, 4000, 4000))
        session.voice.cueUnderPromptDecibels = -10
        let plan = try plan(session)
        // A cue's own gain, as the plan levels it under the voice (`CuePlan.levelled`).
        func own(_ plan: RenderPlan, _ kind: PhaseKind) throws -> Float {
            Float(decibelsToGain(try #require(plan.cues.first { $0.kind == kind }).sound.gainDecibels))
        }
        for phase in plan.schedule {
            let event = try #require(plan.cueEvent(for: phase))
            let full = try own(plan, phase.kind)
            let expected = phase.cycle <= 3 ? full * Float(decibelsToGain(-10)) : full
            #expect(abs(event.gain - expected) < 1e-6, "cycle \(phase.cycle) \(phase.kind)")
        }
        // The same with the voice left out: the cues sound alone as in the whole mix.
        let cuesAlone = try self.plan(session, layers: [.cues])
        #expect(cuesAlone.schedule.map { cuesAlone.cueEvent(for: $0)?.gain } == plan.schedule.map { plan.cueEvent(for: $0)?.gain })
        // 0 dB keeps the cue as it is.
        session.voice.cueUnderPromptDecibels = 0
        let kept = try self.plan(session)
        let first = try #require(kept.schedule.first { _ in true })
        #expect(kept.cueEvent(for: first)?.gain == (try own(kept, first.kind)))
    }

    @Test func promptsAFewSecondsApartShareOneDip() throws {
        // Box breathing at 3.45-s phases, a prompt on each: the bed stays down through all the
        // prompted cycles instead of coming up 12 times.
        let session = promptedSession(BreathPattern(milliseconds: 3450, 3450, 3450, 3450))
        let plan = try plan(session, layers: [.ambience, .voice])
        #expect(plan.ducking.stretches.count == 1)
        let mix = renderMix(plan, sounds: sounds)
        let settle = Int(session.settle.frame(atRate: rate))
        let lastPromptEnd = settle + 12 * 3450 * rate / 1000 - 3450 * rate / 1000 + 6 * rate / 10
        // From the first prompt to the last one's end, never back up: one dip.
        let depth = Float(decibelsToGain(session.voice.duckDecibels)) * 0.5
        var climbs = 0
        for f in settle..<lastPromptEnd where mix[f] > mix[f - 1] { climbs += 1 }
        #expect(climbs == 0)
        #expect(mix[settle..<lastPromptEnd].allSatisfy { abs($0 - depth) < 1e-6 })
        // With no hold they still share one: the prompts are closer than a breath cycle.
        var unheld = session
        unheld.voice.duckHold = .zero
        #expect(try self.plan(unheld).ducking.stretches.count == 1)
    }

    @Test func promptsWithinABreathCycleMergeWhateverThePhases() throws {
        // A 4-7-8 pattern: 7 s between the hold prompt's end and the exhale's is more than
        // attack + release + hold, but less than the 19-s cycle: one dip through the prompts.
        let session = promptedSession(BreathPattern(milliseconds: 4000, 7000, 8000, 0))
        let plan = try plan(session)
        #expect(plan.ducking.stretches.count == 1)
    }

    @Test func voiceFartherApartThanACycleStillDipsEachTime() {
        // Stretches 30 s apart with a 10-s cycle: three dips.
        let duck = DuckPlan(gain: 0.25, attackFrames: 100, releaseFrames: 200, mergeFrames: 10 * 8000,
                            voiced: [(8000, 16000), (30 * 8000, 31 * 8000), (60 * 8000, 61 * 8000)])
        #expect(duck.stretches.count == 3)
        let close = DuckPlan(gain: 0.25, attackFrames: 100, releaseFrames: 200, mergeFrames: 10 * 8000,
                             voiced: [(8000, 16000), (9 * 8000, 10 * 8000), (60 * 8000, 61 * 8000)])
        #expect(close.stretches.count == 2)
    }

    @Test func theIntroDipNeverCutsIntoTheAmbienceFadeIn() throws {
        var session = simpleSession()
        session.settle = .seconds(12)
        session.ambienceFadeIn = .seconds(8)
        session.voice.intro = SoundRef("in")
        session.voice.introAt = .seconds(2)
        session.ambience = [AmbienceBed(sound: SoundRef("bed"), seam: .zero)]
        let plan = try plan(session, layers: [.ambience])
        let mix = renderMix(plan, sounds: sounds)
        // The bed rises, never falls, from its first frame to the end of the fade-in...
        let fadeEnd = 8 * rate
        for f in 1..<fadeEnd { #expect(mix[f] >= mix[f - 1], "the bed falls at \(Double(f) / Double(rate)) s") }
        // ...under the intro it is at its ducked level...
        let depth = Float(decibelsToGain(session.voice.duckDecibels)) * 0.5
        #expect(mix[2 * rate + rate / 2] < depth)
        // ...and it reaches full level once the fade and the release are over.
        #expect(mix[11 * rate] == 0.5)
        // An intro after the fade-in ducks as any clip does: full level, then the attack.
        session.voice.introAt = .seconds(10)
        session.settle = .seconds(20)
        let later = renderMix(try self.plan(session, layers: [.ambience]), sounds: sounds)
        #expect(later[9 * rate] == 0.5)
        #expect(later[10 * rate] == depth)
    }

    @Test func aBellDipsUnderTheVoiceByCueUnderPromptAndComesBack() throws {
        // A bell that rings for 6 s from the start, and a 0.6-s intro at 2 s.
        var session = simpleSession()
        session.settle = .seconds(10)
        session.voice.intro = SoundRef("in")
        session.voice.introAt = .seconds(2)
        session.voice.cueUnderPromptDecibels = -10
        session.bells.start = SoundRef("bell")
        var sounds = self.sounds
        sounds[SoundRef("bell")] = AudioAsset(channels: 1, samples: [Float](repeating: 0.5, count: rate * 6))
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        // The bells alone, the voice left out of the mix: the bell dips all the same.
        let options = RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(60)), layers: [.bells])
        let plan = try RenderPlan(session: session, options: options, sounds: facts)
        let mix = renderMix(plan, sounds: sounds)
        let full = 0.5 * Float(decibelsToGain(session.bells.gainDecibels))
        let attack = Int(session.voice.duckAttack.frame(atRate: rate)), release = Int(session.voice.duckRelease.frame(atRate: rate))
        let start = 2 * rate, end = start + rate * 6 / 10
        #expect(mix[start - attack - 1] == full, "the strike is whole before the words")
        #expect(mix[start..<end].allSatisfy { abs($0 - full * Float(decibelsToGain(-10))) < 1e-6 }, "10 dB down under the words")
        #expect(abs(mix[end + release + 1] - full) < 1e-6, "back after the release")
        for f in (start - attack)..<start { #expect(mix[f] <= mix[f - 1]) }
        for f in end..<(end + release) { #expect(mix[f] >= mix[f - 1]) }
        // 0 dB leaves the bell as it is.
        session.voice.cueUnderPromptDecibels = 0
        let kept = renderMix(try RenderPlan(session: session, options: options, sounds: facts), sounds: sounds)
        #expect(kept[0..<(6 * rate)].allSatisfy { $0 == full })
    }

    @Test func anEndBellWithNoRoomAfterTheVoiceIsLeftOutWithANote() throws {
        // A 2-s closing: the outro starts 1 s into it and lasts 0.6 s, and the bell would follow
        // a second after, past the end.
        var session = simpleSession()
        session.closing = .seconds(2)
        session.voice.outro = SoundRef("in")
        session.voice.outroAfter = .seconds(1)
        session.bells.end = SoundRef("bell")
        var facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        facts[SoundRef("bell")] = SoundFacts(frameCount: Int64(rate * 6))
        let options = RenderOptions(rate: rate, channels: 1, length: .cycles(3), layers: [.bells, .voice])
        let plan = try RenderPlan(session: session, options: options, sounds: facts)
        #expect(!plan.clips.contains { $0.sound == .file(SoundRef("bell")) })
        #expect(plan.notes.contains { $0.contains("end bell ('bell') has no room after the voice") }, "\(plan.notes)")
    }
}
