import Foundation
import MedrenderCore
import MedrenderIO

/// A render that starts at a frame: what the studio plays when asked to listen from a point, so
/// hearing minute 12 does not wait for minutes 0–12 to be written.
///
/// The gain is the whole session's (pass 1 over every frame, which is cheap, or the loudness
/// cache's measure of the same mix, raised as a whole render's is for what the limiter takes).
/// The master chain then starts `warmUp` before the point, so the limiter's state (its
/// lookahead and its release) has settled by the point; its frames up to the point are dropped. Everything else in the chain (mixer, beds, ducks,
/// crossfades, fades) is computed from absolute frames, so the frames from the point are the
/// frames of a whole render: equal where the limiter does nothing, within -90 dBFS where it does.
public struct PointRender {
    /// How much of the mix runs through the limiter before the point and is dropped, 2 s: the
    /// limiter's release (0.08 s to 63 %) has decayed by e^-25 by then.
    public static let warmUp = SessionTime.seconds(2)

    public let prepared: PreparedRender
    /// The first frame given, 0…`totalFrames`.
    public let startFrame: Int64
    /// The whole session's loudness gain, in decibels.
    public let gainDecibels: Double

    /// Measures the whole session (or takes the job's loudness cache's measure) for the gain.
    public init(_ prepared: PreparedRender, startFrame: Int64) {
        self.prepared = prepared
        self.startFrame = min(max(0, startFrame), prepared.plan.totalFrames)
        let mix = LoudnessPass.measuredOrCached(prepared)
        let plan = prepared.plan
        // As a whole render written once: its limiter is at the ceiling (below).
        gainDecibels = LimitedLoudnessPass.gainDecibels(prepared, mix: mix, ceilingDecibels: plan.master.truePeakDBTP,
                                                        parallel: prepared.job.threads > 1)
    }

    /// A render from `startFrame` at a gain given, with no measure of the session: what the
    /// studio plays to let one hear a cue as it is written (0 dB).
    public init(_ prepared: PreparedRender, startFrame: Int64, gainDecibels: Double) {
        self.prepared = prepared
        self.startFrame = min(max(0, startFrame), prepared.plan.totalFrames)
        self.gainDecibels = gainDecibels
    }

    /// Encodes the frames from the start frame as OGG Vorbis (as a whole render's OGG is, with
    /// the session's name as its title) into `sink` as they are made; a sink that throws stops it.
    public func encodeVorbis(quality: Double, to sink: any RenderSink) throws {
        let plan = prepared.plan
        let encoder = try VorbisEncoder(sink: RenderSinkAdapter(sink), channels: plan.channels, rate: plan.rate, quality: quality,
                                        tags: [("TITLE", prepared.job.session.name)])
        try run { samples, count in
            try encoder.write(samples, frameCount: count)
            return true
        }
        try encoder.finish()
    }

    /// Frames given in all: from the start frame to the end of the session.
    public var frameCount: Int64 { prepared.plan.totalFrames - startFrame }

    /// Gives the frames from the start frame to the end, interleaved, in blocks of at most
    /// `Renderer.blockFrames`: `body` gets a pointer to a block's samples and its frame count, and
    /// returns false to stop early.
    public func run(_ body: (UnsafePointer<Float>, Int) throws -> Bool) rethrows {
        let plan = prepared.plan
        let channels = plan.channels
        let warm = Self.warmUp.frame(atRate: plan.rate)
        let chainStart = max(0, startFrame - warm)
        // As a whole render's pass 2 for a lossless file: the gain, and the limiter at the ceiling.
        let limiter = TruePeakLimiter(channels: channels, rate: plan.rate, ceilingDecibels: plan.master.truePeakDBTP)
        let chain = MasterChain(plan: plan, assets: prepared.assets, startFrame: chainStart, gain: Float(decibelsToGain(gainDecibels)),
                                limiting: .limiter(limiter), blockFrames: Renderer.blockFrames)
        var output = [Float](repeating: 0, count: Renderer.blockFrames * channels)
        var position = chainStart
        try output.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            while let (offset, frames) = chain.next(into: base) {
                let blockStart = position
                position += Int64(frames)
                guard position > startFrame else { continue }
                let drop = Int(max(0, startFrame - blockStart))
                guard try body(base + (offset + drop) * channels, frames - drop) else { return }
            }
        }
    }
}
