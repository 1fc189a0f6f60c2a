import Foundation
import MedrenderCore
import MedrenderIO

/// A stem: one layer's plan and its writer.
struct Stem {
    var plan: RenderPlan
    var writer: OutputWriter
}

extension RenderJob {
    /// Opens a stem per layer of the plan, at `stemPath`.
    func openStems(to destination: RenderDestination, plan: RenderPlan, sounds: [SoundRef: SoundFacts],
                   tags: OutputTags) throws -> [Stem] {
        var stems: [Stem] = []
        for layer in Layer.allCases where plan.layers.contains(layer) {
            var layerOptions = options
            layerOptions.layers = [layer]
            let layerPlan = try RenderPlan(session: session, options: layerOptions, sounds: sounds)
            var layerTags = tags
            layerTags.title += " (\(layer.rawValue))"
            let writer = try OutputWriter(format: format, path: stemPath(to: destination, layer: layer), plan: layerPlan,
                                          tags: layerTags, seed: session.seed, blockFrames: Renderer.blockFrames)
            stems.append(Stem(plan: layerPlan, writer: writer))
        }
        return stems
    }

    /// Writes each layer on its own, with the mix's gain and fades (and no limiter, so the stems
    /// add up to the mix before limiting), and finishes each file (it is committed with the mix).
    func writeStems(_ stems: [Stem], assets: MixAssets, gain: Float) throws {
        let blockFrames = Renderer.blockFrames
        for stem in stems {
            let layerPlan = stem.plan
            let mixer = Mixer(plan: layerPlan, assets: assets)
            let fades = MasterFades(plan: layerPlan)
            var buffer = [Float](repeating: 0, count: blockFrames * layerPlan.channels)
            var done: Int64 = 0
            while done < layerPlan.totalFrames {
                let n = Int(min(Int64(blockFrames), layerPlan.totalFrames - done))
                try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) in
                    let b = p.baseAddress!
                    mixer.render(into: b, frameCount: n)
                    fades.apply(b, channels: layerPlan.channels, startFrame: done, frameCount: n)
                    for i in 0..<(n * layerPlan.channels) {
                        let y = b[i] * gain
                        b[i] = y.isFinite ? max(-1, min(1, y)) : 0
                    }
                    try stem.writer.write(b, frameCount: n)
                }
                done += Int64(n)
            }
            try stem.writer.finish()
        }
    }
}
