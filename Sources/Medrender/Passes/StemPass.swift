import Foundation
import MedrenderCore
import MedrenderIO

/// The stems: each layer through the same master chain as the mix, with the mix's gain, and
/// multiplied by the gain the mix's limiter applied at each frame (the limiter listens to the
/// whole mix, so the stems follow it instead of limiting themselves). The stems then add up to the
/// mix as written, within rounding (and dither, at 16 bits), and none goes over what the mix does.
enum StemPass {
    /// One layer's plan and its writer.
    struct Stem {
        var layer: Layer
        var plan: RenderPlan
        var writer: OutputWriter
    }

    /// Writes every stem and finishes its file (it is committed with the mix). The mix's chain is
    /// run again beside them for its limiter's gains: same gain, same ceiling, so the same gains
    /// as the write pass that made the file.
    static func write(_ stems: [Stem], prepared: PreparedRender, gain: Float, ceilingDecibels: Double) throws {
        guard !stems.isEmpty else { return }
        let plan = prepared.plan
        let n = Renderer.blockFrames, channels = plan.channels
        let limiter = TruePeakLimiter(channels: channels, rate: plan.rate, ceilingDecibels: ceilingDecibels)
        let mix = MasterChain(plan: plan, assets: prepared.assets, gain: gain, limiting: .limiter(limiter), blockFrames: n)
        let chains = stems.map {
            MasterChain(plan: $0.plan, assets: prepared.assets, gain: gain, limiting: .follow(latency: limiter.latency), blockFrames: n)
        }
        var mixed = [Float](repeating: 0, count: n * channels)
        var gains = [Float](repeating: 1, count: n)
        var layer = [Float](repeating: 0, count: n * channels)
        try mixed.withUnsafeMutableBufferPointer { mixed in
            try gains.withUnsafeMutableBufferPointer { gains in
                try layer.withUnsafeMutableBufferPointer { layer in
                    while let (offset, frames) = mix.next(into: mixed.baseAddress!, gains: gains.baseAddress!) {
                        for (stem, chain) in zip(stems, chains) {
                            guard let (o, f) = chain.next(into: layer.baseAddress!, following: gains.baseAddress!), o == offset, f == frames else {
                                preconditionFailure("a stem's chain fell out of step with the mix's")
                            }
                            let start = layer.baseAddress! + offset * channels
                            for i in 0..<(frames * channels) where !start[i].isFinite { start[i] = 0 }
                            try stem.writer.write(start, frameCount: frames)
                        }
                    }
                }
            }
        }
        for stem in stems { try stem.writer.finish() }
    }
}
