import Foundation
import MedrenderCore
import Testing

/// Renders the whole mix of `plan` into memory.
func renderMix(_ plan: RenderPlan, sounds: [SoundRef: AudioAsset] = [:], block: Int = 4096) -> [Float] {
    let mixer = Mixer(plan: plan, assets: MixAssets(sounds: sounds))
    var out = [Float](repeating: 0, count: Int(plan.totalFrames) * plan.channels)
    out.withUnsafeMutableBufferPointer { p in
        var done = 0
        let total = Int(plan.totalFrames)
        while done < total {
            let n = min(block, total - done)
            mixer.render(into: p.baseAddress! + done * plan.channels, frameCount: n)
            done += n
        }
    }
    return out
}

func noiseAsset(seconds: Int, rate: Int, seed: UInt64, channels: Int = 1) -> AudioAsset {
    var g = SeededGenerator(seed: seed)
    return AudioAsset(channels: channels, samples: (0..<(seconds * rate * channels)).map { _ in g.nextUnit() * 2 - 1 })
}

func rmsDecibels(_ s: ArraySlice<Float>) -> Double {
    10 * log10(s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count))
}

func simpleSession(_ pattern: BreathPattern = BreathPattern(milliseconds: 4000, 0, 6000, 0)) -> Session {
    Session(name: "t", segments: [PatternSegment(pattern: pattern)], settle: .seconds(5), closing: .seconds(5),
            ambienceFadeIn: .zero, ambienceFadeOut: .zero, master: MasterSettings(fadeOut: .zero))
}

@Suite struct SoundDesignTests {
    let rate = 8000

    @Test func bedToBedCrossfadeOnUncorrelatedNoiseKeepsItsLevel() throws {
        var session = simpleSession()
        session.ambience = [AmbienceBed(sound: SoundRef("a"), seam: .zero),
                            AmbienceBed(sound: SoundRef("b"), seam: .zero, from: .time(.seconds(30)))]
        session.ambienceCrossfade = .seconds(10)
        let sounds = [SoundRef("a"): noiseAsset(seconds: 20, rate: rate, seed: 1),
                      SoundRef("b"): noiseAsset(seconds: 20, rate: rate, seed: 2)]
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(60)),
                                                                           layers: [.ambience]), sounds: facts)
        #expect(plan.beds.map(\.startFrame) == [0, 25 * 8000])
        #expect(plan.beds.map(\.endFrame) == [35 * 8000, 60 * 8000])
        let mix = renderMix(plan, sounds: sounds)
        let reference = rmsDecibels(mix[(5 * rate)..<(20 * rate)])
        // Through the crossfade, in half-second windows: within 0.5 dB of the level outside it.
        for start in stride(from: 25 * rate, to: 35 * rate, by: rate / 2) {
            let level = rmsDecibels(mix[start..<(start + rate / 2)])
            #expect(abs(level - reference) < 0.5, "at \(Double(start) / Double(rate)) s: \(level) dB against \(reference) dB")
        }
        // Two beds never both at full level: before the crossfade only the first plays, after it only the second.
        #expect(plan.beds[1].startFrame >= plan.beds[0].endFrame - Int64(10 * rate))
    }

    @Test func duckingReachesExactlyItsDepthUnderTheVoiceAndComesBack() throws {
        var session = simpleSession()
        session.ambience = [AmbienceBed(sound: SoundRef("bed"), seam: .zero)]
        session.voice.clips = [TimedClip(sound: SoundRef("words"), at: .seconds(10))]
        session.voice.duckDecibels = -8
        session.voice.duckAttack = .seconds(1)
        session.voice.duckRelease = .seconds(2)
        // A constant bed and a silent voice clip: the mix is the bed times the duck envelope.
        let sounds = [SoundRef("bed"): AudioAsset(channels: 1, samples: [Float](repeating: 0.5, count: rate * 4)),
                      SoundRef("words"): AudioAsset(channels: 1, samples: [Float](repeating: 0, count: rate * 3))]
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(30)),
                                                                           layers: [.ambience, .voice]), sounds: facts)
        let mix = renderMix(plan, sounds: sounds)
        let depth = Float(pow(10, -8.0 / 20)) * 0.5
        // At full level before the attack; at exact depth from the voice's first frame to its last.
        #expect(mix[9 * rate - 1] == 0.5)
        #expect(mix[9 * rate + rate / 2] < 0.5 && mix[9 * rate + rate / 2] > depth, "the dip starts before the word")
        for f in (10 * rate)..<(13 * rate) { #expect(mix[f] == depth) }
        // Back to 0 dB once the release is over.
        #expect(mix[13 * rate + rate] > depth && mix[13 * rate + rate] < 0.5)
        for f in (15 * rate)..<(20 * rate) { #expect(mix[f] == 0.5) }
    }

    @Test func closeVoiceClipsShareOneDip() {
        let duck = DuckPlan(gain: 0.25, attackFrames: 100, releaseFrames: 200, voiced: [(1000, 2000), (2250, 3000), (9000, 9100)])
        #expect(duck.stretches.count == 2)
        #expect(duck.gain(at: 2100) == 0.25)
        #expect(duck.gain(at: 899) == 1)
        #expect(duck.gain(at: 999) == 0.25)
        #expect(duck.gain(at: 3199) == 1)
    }

    @Test func promptStartsOnItsPhaseFrameForTheFirstCycles() throws {
        var session = simpleSession(BreathPattern(milliseconds: 4700, 300, 6300, 1100))
        session.voice.prompts = [.inhale: SoundRef("in"), .exhale: SoundRef("out")]
        session.voice.promptCycles = 2
        let word = AudioAsset(channels: 1, samples: (0..<800).map { Float(sin(Double($0) * 0.3) * 0.2 + 0.1) })
        let sounds = [SoundRef("in"): word, SoundRef("out"): word]
        let facts = sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) }
        for rate in [8000, 22050, 44100] {
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(60)),
                                                                               layers: [.voice]), sounds: facts)
            let mix = renderMix(plan, sounds: sounds)
            let marks = Array(plan.cueMarks).filter { $0.cycle <= 2 && ($0.kind == .inhale || $0.kind == .exhale) }
            #expect(marks.count == 4)
            var from = 0
            for mark in marks {
                #expect(mix[from...].firstIndex { $0 != 0 } == Int(mark.frame))
                from = Int(mark.frame) + 800
            }
            // No prompt after the second cycle.
            #expect(mix[from...].allSatisfy { $0 == 0 })
        }
    }

    @Test func promptLongerThanItsPhaseNamesBoth() {
        var session = simpleSession(BreathPattern(milliseconds: 1000, 0, 3000, 0))
        session.voice.prompts = [.inhale: SoundRef("long")]
        #expect {
            try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(60))),
                           sounds: [SoundRef("long"): SoundFacts(frameCount: 8000 * 2)])
        } throws: { error in
            let text = "\(error)"
            return text.contains("'long'") && text.contains("inhale phase (1 s)") && text.contains("lasts 2 s")
        }
    }

    @Test func trackLongerThanTheSessionSaysByHowMuch() {
        var session = simpleSession()
        session.voice.track = SoundRef("talk")
        #expect {
            try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .duration(.seconds(60))),
                           sounds: [SoundRef("talk"): SoundFacts(frameCount: 8000 * 75)])
        } throws: { "\($0)".contains("15 s too few") }
    }

    @Test func metronomeTicksEverySecondWithinItsPhases() throws {
        var session = simpleSession(BreathPattern(milliseconds: 4000, 0, 6000, 0))
        session.cues[.inhale] = nil
        session.cues[.exhale] = nil
        session.metronome = Metronome(phases: [.exhale])
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .cycles(2), layers: [.cues]))
        let mix = renderMix(plan)
        // Exhales start at 9 s and 19 s; ticks at +1 … +5 s of each, and nowhere else.
        var onsets: [Int] = []
        var i = 0
        while i < mix.count {
            if mix[i] != 0 {
                onsets.append(i)
                i += rate / 2
            } else {
                i += 1
            }
        }
        #expect(onsets == [10, 11, 12, 13, 14, 20, 21, 22, 23, 24].map { $0 * rate })
    }

    @Test func swellRisesThroughTheInhaleAndFallsThroughTheExhale() throws {
        var session = simpleSession(BreathPattern(milliseconds: 4000, 2000, 4000, 2000))
        for kind in PhaseKind.allCases { session.cues[kind] = nil }
        session.swell = BreathSwell(kind: .tone, pitchHertz: 200, gainDecibels: -6)
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .cycles(2), layers: [.cues]))
        let mix = renderMix(plan)
        func level(at second: Double) -> Double { rmsDecibels(mix[Int(second * Double(rate))..<Int((second + 0.1) * Double(rate))]) }
        // Inhale 5–9 s, hold 9–11, exhale 11–15, hold 15–17.
        #expect(level(at: 5.5) < level(at: 7) && level(at: 7) < level(at: 8.8))
        #expect(abs(level(at: 9.5) - level(at: 10.5)) < 0.5)
        #expect(level(at: 11.2) > level(at: 13) && level(at: 13) > level(at: 14.8))
        #expect(mix[Int(15.5 * Double(rate))..<Int(16.9 * Double(rate))].allSatisfy { $0 == 0 })
    }

    @Test func intervalBellsAndCountdownLandOnTheirFrames() throws {
        var session = simpleSession(BreathPattern(milliseconds: 5000, 0, 5000, 0))
        session.bells = BellSettings(start: SoundRef("bell"))
        session.bells.every = .seconds(60)
        session.bells.at = [.seconds(100)]
        session.bells.countdownSeconds = 3
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(185))),
                                  sounds: [SoundRef("bell"): SoundFacts(frameCount: 800)])
        let bellStarts = plan.clips.filter { $0.sound == .file(SoundRef("bell")) }.map(\.startFrame)
        // The start bell, then every minute of breathing from 5 s (65, 125 s), and at 100 s.
        #expect(bellStarts == [0, 65, 100, 125].map { Int64($0 * rate) })
        // Breathing ends after 17 cycles at 175 s: ticks at 172, 173 and 174 s.
        #expect(plan.schedule.end == .seconds(175))
        #expect(plan.clips.filter { $0.sound == .countdown }.map(\.startFrame) == [174, 173, 172].map { Int64($0 * rate) }.sorted())
    }
}

@Suite struct TruePeakMeterTests {
    @Test func findsThePeakBetweenSamples() {
        // A quarter-rate sine at 45° phase: its samples are at ±0.707 of its true peak.
        let samples = (0..<4000).map { Float(0.9 * sin(Double.pi / 2 * Double($0) + .pi / 4)) }
        let meter = TruePeakMeter(channels: 1, rate: 48000)
        samples.withUnsafeBufferPointer { meter.add($0.baseAddress!, frameCount: samples.count) }
        let samplePeak = samples.map { abs($0) }.max()!
        #expect(samplePeak < 0.65)
        // Tolerance: the 4× interpolator lands within 0.2 dB of the 0.9 true peak.
        #expect(abs(20 * log10(Double(meter.peak) / 0.9)) < 0.2)
    }
}
