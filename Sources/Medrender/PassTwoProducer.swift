import MedrenderCore
import MedrenderIO

/// Pass 2's first half: mixes a block, applies the fades, the gain and the limiter, measures what
/// will be written (loudness, loudness range, true peak), and says which of the limited frames to
/// keep (the limiter's delay is skipped at the start and filled at the end). The encoder, on the
/// other core, then does nothing but encode.
final class PassTwoProducer {
    let meter: LoudnessMeter
    let truePeak: TruePeakMeter
    private(set) var samplePeak: Float = 0
    private(set) var failure: IOError?
    let plan: RenderPlan
    let mixer: Mixer
    let fades: MasterFades
    let gain: Float
    let limiter: TruePeakLimiter
    private var input: [Float]
    private var toSkip: Int64
    private var fed: Int64 = 0
    private var emitted: Int64 = 0
    /// Whether what is written is measured here; not when the file is measured as it decodes.
    let measuresOutput: Bool

    init(plan: RenderPlan, assets: MixAssets, gain: Float, limiter: TruePeakLimiter, measuresOutput: Bool = true) throws(IOError) {
        self.measuresOutput = measuresOutput
        self.meter = try LoudnessMeter(channels: plan.channels, rate: plan.rate, withRange: true)
        self.truePeak = TruePeakMeter(channels: plan.channels, rate: plan.rate)
        self.plan = plan
        self.mixer = Mixer(plan: plan, assets: assets)
        self.fades = MasterFades(plan: plan)
        self.gain = gain
        self.limiter = limiter
        self.input = [Float](repeating: 0, count: Renderer.blockFrames * plan.channels)
        self.toSkip = Int64(limiter.latency)
    }

    /// Fills `block` with the next frames to write; false when the session is done.
    func next(into block: inout BlockPipeline.Block) -> Bool {
        let channels = plan.channels
        let n = Renderer.blockFrames
        while emitted < plan.totalFrames {
            input.withUnsafeMutableBufferPointer { inp in
                mixer.render(into: inp.baseAddress!, frameCount: n)
                fades.apply(inp.baseAddress!, channels: channels, startFrame: fed, frameCount: n)
                for i in 0..<(n * channels) { inp[i] *= gain }
                limiter.process(inp.baseAddress!, block.samples, frameCount: n)
            }
            fed += Int64(n)
            let skip = Int(min(toSkip, Int64(n)))
            toSkip -= Int64(skip)
            let emit = Int(min(Int64(n - skip), plan.totalFrames - emitted))
            if emit > 0 {
                block.offset = skip
                block.frames = emit
                emitted += Int64(emit)
                let start = block.samples + skip * channels
                guard measuresOutput else { return true }
                for i in 0..<(emit * channels) { samplePeak = max(samplePeak, abs(start[i])) }
                truePeak.add(start, frameCount: emit)
                do {
                    try meter.add(start, frameCount: emit)
                } catch {
                    failure = error
                }
                return true
            }
        }
        return false
    }
}
