import MedrenderCore

/// The finished mix of a prepared render, block by block, for an encoder outside this module (a
/// video's audio track): pass 1 measures it (or the loudness cache knows it), the limited pass
/// sets the gain as it does for an output written once, then the master chain runs with that gain
/// and the limiter, Float32 interleaved, before any dither. The frames are an audio render's
/// written once at the same headroom; a lossy file written again may end at another gain.
///
/// Not `Sendable`: one stream belongs to one thread.
public final class MasterStream {
    /// The session's frames, at `rate`.
    public let totalFrames: Int64
    public let rate: Int
    public let channels: Int
    /// The loudness gain applied, in dB.
    public let gainDecibels: Double
    /// The integrated loudness pass 1 measured before the gain, in LUFS (−∞ for silence).
    public let measuredLoudness: Double
    /// Frames given so far.
    public private(set) var framesDone: Int64 = 0
    private let chain: MasterChain
    private let block: UnsafeMutablePointer<Float>

    /// The most frames one `next` gives.
    public static let blockFrames = Renderer.blockFrames

    /// Measures `prepared` (pass 1) and sets up its master chain with the limiter `headroomDecibels`
    /// under the session's true-peak ceiling (0: the ceiling itself, as a WAV render has it; a
    /// codec's headroom as the render of a lossy format has it).
    public init(_ prepared: PreparedRender, headroomDecibels: Double = 0) {
        let plan = prepared.plan
        let mix = LoudnessPass.measuredOrCached(prepared)
        measuredLoudness = mix.loudness
        // Written once, as a stream is: raised for what the limiter takes.
        gainDecibels = LimitedLoudnessPass.gainDecibels(prepared, mix: mix, ceilingDecibels: plan.master.truePeakDBTP - headroomDecibels,
                                                        parallel: prepared.job.threads > 1)
        let limiter = TruePeakLimiter(channels: plan.channels, rate: plan.rate,
                                      ceilingDecibels: plan.master.truePeakDBTP - headroomDecibels)
        chain = MasterChain(plan: plan, assets: prepared.assets, gain: Float(decibelsToGain(gainDecibels)),
                            limiting: .limiter(limiter), blockFrames: Self.blockFrames)
        totalFrames = plan.totalFrames
        rate = plan.rate
        channels = plan.channels
        block = .allocate(capacity: Self.blockFrames * plan.channels)
        block.initialize(repeating: 0, count: Self.blockFrames * plan.channels)
    }

    deinit { block.deallocate() }

    /// The next frames of the mix (interleaved, valid until the next call), or nil when every
    /// frame has been given.
    public func next() -> UnsafeBufferPointer<Float>? {
        guard let (offset, frames) = chain.next(into: block) else { return nil }
        framesDone += Int64(frames)
        return UnsafeBufferPointer(start: block + offset * channels, count: frames * channels)
    }
}
