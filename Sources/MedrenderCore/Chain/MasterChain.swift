/// The master chain: the session's mix, its fades, the loudness gain and the true-peak limiter,
/// in that order, block by block. Every pass of a render runs one: pass 1 measures its output
/// before the gain (`gain: nil`, no limiter), pass 2 writes it, and each stem runs the same chain
/// on one layer, following the mix's limiter (`.follow`), so that the stems add up to the mix.
///
/// It keeps SoX's stage contract: each call takes a block of the mix in and gives the frames that
/// come out; a stage with latency (the limiter, or a stem's matching delay) is fed past the
/// session's end until every frame of the session is out (drained), and the frames before its
/// first output are skipped. `totalFrames` frames come out in all, exactly.
public final class MasterChain {
    /// What follows the gain.
    public enum Limiting {
        /// Nothing: the chain ends at the gain (pass 1).
        case none
        /// This limiter keeps the true peak under its ceiling (pass 2).
        case limiter(TruePeakLimiter)
        /// The gains another chain's limiter applied, handed to `next(into:following:)`, applied
        /// after a delay of `latency` frames (that limiter's): a stem of that chain's mix.
        case follow(latency: Int)
    }

    public let plan: RenderPlan
    public let channels: Int
    /// Frames between a frame of the mix going in and the same frame coming out.
    public let latency: Int
    private let mixer: Mixer
    private let fades: MasterFades
    private let gain: Float?
    private let limiting: Limiting
    private let blockFrames: Int
    private var input: [Float]
    private var delay: DelayLine?
    /// Frames of the mix taken in (from `startFrame`), frames given out, frames still to skip.
    private var fed: Int64
    private var emitted: Int64
    private var toSkip: Int64

    /// - Parameters:
    ///   - startFrame: the first frame of the mix to take in; the chain gives the frames from
    ///     there on. With a limiter, the limiter starts at rest there: to give a whole render's
    ///     frames from a point, start a little before it and drop what comes first (`PointRender`).
    ///   - gain: the loudness gain, linear (nil: none, as pass 1 measures).
    ///   - blockFrames: frames of the mix taken in per block (`next`), or at most (`render`).
    public init(plan: RenderPlan, assets: MixAssets, startFrame: Int64 = 0, gain: Float? = nil, limiting: Limiting = .none,
                blockFrames: Int) {
        self.plan = plan
        channels = plan.channels
        mixer = Mixer(plan: plan, assets: assets, startFrame: startFrame)
        fades = MasterFades(plan: plan)
        self.gain = gain
        self.limiting = limiting
        self.blockFrames = blockFrames
        switch limiting {
        case .none: latency = 0
        case .limiter(let limiter): latency = limiter.latency
        case .follow(let frames):
            latency = frames
            delay = DelayLine(channels: plan.channels, frames: frames)
        }
        input = [Float](repeating: 0, count: blockFrames * plan.channels)
        fed = startFrame
        emitted = startFrame
        toSkip = Int64(latency)
    }

    /// The limiter, when the chain has one.
    public var limiter: TruePeakLimiter? {
        if case .limiter(let limiter) = limiting { limiter } else { nil }
    }

    /// Whether every frame of the session has come out.
    public var isDone: Bool { emitted >= plan.totalFrames }

    /// Mixes `frameCount` frames (at most `blockFrames`) into `output` with the fades and the
    /// gain: the chain without latency, which gives each frame as it takes it in.
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        precondition(latency == 0 && frameCount <= blockFrames, "render(into:frameCount:) is for a chain without latency")
        mixAndGain(into: output, frameCount: frameCount)
        fed += Int64(frameCount)
        emitted += Int64(frameCount)
    }

    /// Takes the next block of the mix in and writes what comes out into `output` (room for
    /// `blockFrames` frames), from frame `offset` of it, `frames` of them; nil when the session
    /// is done. With a limiter, `gains` (room for `blockFrames`) gets the gain it applied to each
    /// frame of `output`, for the stems that follow it.
    public func next(into output: UnsafeMutablePointer<Float>, gains: UnsafeMutablePointer<Float>? = nil) -> (offset: Int, frames: Int)? {
        guard case .limiter(let limiter) = limiting else { preconditionFailure("next(into:gains:) is for a chain with a limiter") }
        return step { input in limiter.process(input, output, frameCount: blockFrames, gains: gains) }
    }

    /// Takes the next block of the mix in and gives it delayed and times `gains`, the gains the
    /// followed chain's limiter applied to the same block (`.follow`).
    public func next(into output: UnsafeMutablePointer<Float>, following gains: UnsafePointer<Float>) -> (offset: Int, frames: Int)? {
        guard let delay else { preconditionFailure("next(into:following:) is for a chain that follows a limiter") }
        let channels = self.channels, n = blockFrames
        return step { input in
            delay.process(input, output, frameCount: n)
            if channels == 2 {
                for f in 0..<n {
                    output[2 * f] *= gains[f]
                    output[2 * f + 1] *= gains[f]
                }
            } else {
                for f in 0..<n {
                    let g = gains[f]
                    for c in 0..<channels { output[f * channels + c] *= g }
                }
            }
        }
    }

    /// One block: mix, fades and gain into the input buffer, `stage` from it into the output, and
    /// the frames of the session that came out.
    private func step(_ stage: (UnsafeMutablePointer<Float>) -> Void) -> (offset: Int, frames: Int)? {
        let n = blockFrames
        while emitted < plan.totalFrames {
            input.withUnsafeMutableBufferPointer { inp in
                mixAndGain(into: inp.baseAddress!, frameCount: n)
                stage(inp.baseAddress!)
            }
            fed += Int64(n)
            let skip = Int(min(toSkip, Int64(n)))
            toSkip -= Int64(skip)
            let emit = Int(min(Int64(n - skip), plan.totalFrames - emitted))
            if emit > 0 {
                emitted += Int64(emit)
                return (skip, emit)
            }
        }
        return nil
    }

    @inline(__always)
    private func mixAndGain(into buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        mixer.render(into: buffer, frameCount: n)
        fades.apply(buffer, channels: channels, startFrame: fed, frameCount: n)
        if let gain {
            for i in 0..<(n * channels) { buffer[i] *= gain }
        }
    }
}

/// A delay of a fixed number of frames, zeros first: what a stem goes through so that it stays
/// aligned with a limiter's output.
final class DelayLine {
    let channels: Int
    let frames: Int
    private var ring: [Float]
    private var position = 0

    init(channels: Int, frames: Int) {
        self.channels = channels
        self.frames = frames
        ring = [Float](repeating: 0, count: max(1, frames) * channels)
    }

    /// Writes `frameCount` frames of `input`, each `frames` frames late, into `output`.
    func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, frameCount: Int) {
        guard frames > 0 else {
            output.update(from: input, count: frameCount * channels)
            return
        }
        ring.withUnsafeMutableBufferPointer { ring in
            // Run by run up to the ring's end: what leaves the ring, then what takes its place.
            var f = 0
            while f < frameCount {
                let run = min(frameCount - f, frames - position)
                let slot = ring.baseAddress! + position * channels
                (output + f * channels).update(from: slot, count: run * channels)
                slot.update(from: input + f * channels, count: run * channels)
                f += run
                position += run
                if position == frames { position = 0 }
            }
        }
    }
}
