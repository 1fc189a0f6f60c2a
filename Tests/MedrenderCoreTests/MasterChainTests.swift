import Foundation
import MedrenderCore
import Testing

/// The master chain: one chain for every pass, giving exactly the session's frames, the same
/// frames from any start, and stems that follow its limiter.
@Suite struct MasterChainTests {
    static func plan(rate: Int = 8000, layers: Set<Layer> = Set(Layer.allCases)) throws -> RenderPlan {
        var session = withCutCues(cueSession(BreathPattern(milliseconds: 3000, 500, 3700, 0), settle: .seconds(2)))
        session.bells.countdownSeconds = 3
        return try RenderPlan(session: session, options: RenderOptions(rate: rate, length: .duration(.seconds(40)), layers: layers))
    }

    static func assets(_ plan: RenderPlan) -> MixAssets {
        var assets = MixAssets(sounds: [:])
        assets.bake(for: plan)
        return assets
    }

    /// Everything a chain with a limiter gives, block after block.
    static func drain(_ chain: MasterChain, blockFrames: Int, gains: Bool = false) -> (samples: [Float], gains: [Float]) {
        var out = [Float](repeating: 0, count: blockFrames * chain.channels)
        var g = [Float](repeating: 0, count: blockFrames)
        var samples: [Float] = [], applied: [Float] = []
        while let (offset, frames) = out.withUnsafeMutableBufferPointer({ o in
            g.withUnsafeMutableBufferPointer { chain.next(into: o.baseAddress!, gains: gains ? $0.baseAddress! : nil) }
        }) {
            samples += out[(offset * chain.channels)..<((offset + frames) * chain.channels)]
            applied += g[offset..<(offset + frames)]
        }
        return (samples, applied)
    }

    /// Zero frames through one block plus one, and a block that ends on the session's last frame:
    /// the chain gives exactly `totalFrames`, whatever its latency and block size.
    @Test(arguments: [1, 7, 4096, 4097])
    func aLimitedChainGivesExactlyTheSessionsFrames(blockFrames: Int) throws {
        let plan = try Self.plan()
        let limiter = TruePeakLimiter(channels: plan.channels, rate: plan.rate, ceilingDecibels: -6)
        let chain = MasterChain(plan: plan, assets: Self.assets(plan), gain: 4, limiting: .limiter(limiter), blockFrames: blockFrames)
        let (samples, _) = Self.drain(chain, blockFrames: blockFrames)
        #expect(samples.count == Int(plan.totalFrames) * plan.channels)
        #expect(chain.isDone)
        #expect(limiter.deepestGain < 0.9, "a gain of +12 dB should make the limiter work")
    }

    /// A chain started at a frame gives the frames a chain started at 0 gives from there on.
    @Test(arguments: [Int64(0), 1, 8000, 8192, 123_457])
    func aChainFromAFrameGivesTheSameFrames(start: Int64) throws {
        let plan = try Self.plan()
        let assets = Self.assets(plan)
        let n = 1024
        let whole = MasterChain(plan: plan, assets: assets, gain: 0.5, blockFrames: n)
        let part = MasterChain(plan: plan, assets: assets, startFrame: start, gain: 0.5, blockFrames: n)
        var a = [Float](repeating: 0, count: n * 2), b = a
        var at: Int64 = 0
        var reference: [Float] = [], fromStart: [Float] = []
        while at < plan.totalFrames {
            let count = Int(min(Int64(n), plan.totalFrames - at))
            a.withUnsafeMutableBufferPointer { whole.render(into: $0.baseAddress!, frameCount: count) }
            if at + Int64(count) > start {
                let skip = Int(max(0, start - at))
                reference += a[(skip * 2)..<(count * 2)]
            }
            at += Int64(count)
        }
        at = start
        while at < plan.totalFrames {
            let count = Int(min(Int64(n), plan.totalFrames - at))
            b.withUnsafeMutableBufferPointer { part.render(into: $0.baseAddress!, frameCount: count) }
            fromStart += b[0..<(count * 2)]
            at += Int64(count)
        }
        #expect(fromStart.count == reference.count)
        #expect(fromStart == reference)
    }

    /// A chain that follows a limiter gives its mix delayed by the limiter's latency and times the
    /// gains handed to it: with the limiter's own gains, the stems of a mix add up to it.
    @Test func stemsFollowingTheLimiterAddUpToTheMix() throws {
        let plan = try Self.plan()
        let assets = Self.assets(plan)
        let n = 4096
        let limiter = TruePeakLimiter(channels: 2, rate: plan.rate, ceilingDecibels: -6)
        let mix = MasterChain(plan: plan, assets: assets, gain: 4, limiting: .limiter(limiter), blockFrames: n)
        let layers: [Layer] = [.cues, .bells]
        let stems = layers.map {
            MasterChain(plan: plan.restricted(to: [$0]), assets: assets, gain: 4, limiting: .follow(latency: limiter.latency), blockFrames: n)
        }
        var out = [Float](repeating: 0, count: n * 2), stem = out, gains = [Float](repeating: 0, count: n)
        var worst: Float = 0
        var reduced = false
        while let (offset, frames) = out.withUnsafeMutableBufferPointer({ o in
            gains.withUnsafeMutableBufferPointer { mix.next(into: o.baseAddress!, gains: $0.baseAddress!) }
        }) {
            var sum = [Float](repeating: 0, count: frames * 2)
            for chain in stems {
                let step = stem.withUnsafeMutableBufferPointer { s in
                    gains.withUnsafeBufferPointer { chain.next(into: s.baseAddress!, following: $0.baseAddress!) }
                }
                #expect(step?.offset == offset && step?.frames == frames)
                for i in 0..<(frames * 2) { sum[i] += stem[offset * 2 + i] }
            }
            for i in 0..<(frames * 2) { worst = max(worst, abs(sum[i] - out[offset * 2 + i])) }
            if gains[offset..<(offset + frames)].contains(where: { $0 < 0.99 }) { reduced = true }
        }
        #expect(reduced, "the limiter should act on this mix")
        #expect(worst < 1e-6, "the stems add up to within \(worst) of the mix")
    }

    /// A plan restricted to a layer is the plan made with only that layer.
    @Test(arguments: [Layer.cues, .voice, .ambience, .bells])
    func aRestrictedPlanIsThePlanOfItsLayer(layer: Layer) throws {
        let full = try Self.plan()
        let alone = try Self.plan(layers: [layer])
        let restricted = full.restricted(to: [layer])
        #expect(restricted.layers == alone.layers)
        #expect(restricted.clips == alone.clips)
        #expect(restricted.beds == alone.beds)
        #expect(restricted.cues.map(\.kind) == alone.cues.map(\.kind))
        #expect(restricted.totalFrames == alone.totalFrames)
    }
}
