import Foundation
import MedrenderCore
import Testing

/// Beds that loop at their own length, and joins between beds, without a click.
@Suite struct BedJoinTests {
    let rate = 8000

    @Test(arguments: [0.0, 0.01, 0.05, 1])
    func aJoinBetweenBedsNeverSteps(crossfadeSeconds: Double) throws {
        // Two constant beds of opposite sign: a hard cut between them would step by 1.0.
        var session = simpleSession()
        session.ambience = [AmbienceBed(sound: SoundRef("a"), seam: .zero),
                            AmbienceBed(sound: SoundRef("b"), seam: .zero, from: .time(.seconds(20)))]
        session.ambienceCrossfade = SessionTime(seconds: crossfadeSeconds)!
        let sounds = [SoundRef("a"): AudioAsset(channels: 1, samples: [Float](repeating: 0.5, count: rate)),
                      SoundRef("b"): AudioAsset(channels: 1, samples: [Float](repeating: -0.5, count: rate))]
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(40)),
                                                                           layers: [.ambience]),
                                  sounds: sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) })
        let mix = renderMix(plan, sounds: sounds)
        let steps = (1..<mix.count).map { abs(mix[$0] - mix[$0 - 1]) }
        // The shortest crossfade (50 ms, 400 frames here) changes by at most about π/2 / 400 per frame.
        #expect(steps.max()! < 0.01)
        #expect(mix[19 * rate] == 0.5 && mix[21 * rate] == -0.5)
    }

    @Test func aBedThatLoopsByItselfPlaysWholeAtItsOwnLength() throws {
        var session = simpleSession()
        session.ambience = [AmbienceBed(sound: SoundRef("swell"))]
        // A recording of 7.3 s whose end runs on into its start.
        let frames = 7 * rate + 3 * rate / 10
        let swell = AudioAsset(channels: 1, samples: (0..<frames).map { Float(sin(2 * Double.pi * Double($0) / Double(frames))) * 0.5 })
        for natural in [true, false] {
            let facts = [SoundRef("swell"): SoundFacts(frameCount: Int64(frames), loopsNaturally: natural)]
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(40)),
                                                                               layers: [.ambience]), sounds: facts)
            #expect(plan.beds[0].seamFrames == (natural ? 0 : 3 * Int64(rate)))
            guard natural else { continue }
            let mix = renderMix(plan, sounds: [SoundRef("swell"): swell])
            // Periodic at the recording's own length, and every frame of it is heard, as the
            // loop holds it: within half a step of 16 bits under its peak (0.5).
            for f in 0..<(mix.count - frames) { #expect(mix[f] == mix[f + frames]) }
            let offset = Int(plan.beds[0].loopOffsetSeed % UInt64(frames))
            let halfStep: Float = 0.5 / 32767 / 2
            let worst = (0..<frames).map { abs(mix[$0] - swell.samples[($0 + offset) % frames]) }.max()!
            #expect(worst <= halfStep * 1.001)
        }
        // A seam the preset gives wins over the sound's own loop.
        session.ambience = [AmbienceBed(sound: SoundRef("swell"), seam: .seconds(1))]
        let given = try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(40)),
                                                                            layers: [.ambience]),
                                   sounds: [SoundRef("swell"): SoundFacts(frameCount: Int64(frames), loopsNaturally: true)])
        #expect(given.beds[0].seamFrames == Int64(rate))
    }
}
