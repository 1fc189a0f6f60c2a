import Foundation
import MedrenderCore
import MedrenderIO

/// Pass 2: the master chain with the gain and the limiter (`MasterChain`), its output measured as
/// it goes (unless the file is measured as it decodes) and handed to the writer. Mixing and
/// limiting ride on one thread while the encoder runs on this one (`BlockPipeline`), or all of it
/// runs here in turn; the bytes are the same.
///
/// The stems are written beside the mix, on the mixing thread: each layer through the same chain,
/// with the mix's gain, multiplied by the gain the mix's limiter applied at each frame (the
/// limiter listens to the whole mix, so the stems follow it instead of limiting themselves). The
/// stems then add up to the mix as written, within rounding (and dither, at 16 bits), and the mix
/// is not run again for them. A stem can peak over the mix only where layers cancel in the mix (a
/// full-scale test voice under a limiter working hard at −12 LUFS peaked at 1.10 in its stem).
enum WritePass {
    /// One layer's stem: its plan and its writer (`OutputSet` opens them).
    struct Stem {
        var layer: Layer
        var plan: RenderPlan
        var writer: OutputWriter
    }

    /// What one write pass measured of its output, before encoding or dither.
    struct Figures {
        /// Nil when the output is not measured here (a lossy file measured as it decodes).
        var meter: LoudnessGate?
        /// The peaks; not measured (left at 0) where a check picks packets by the stretch peaks
        /// and finds the peaks as decoded.
        var truePeak: TruePeakMeter
        var samplePeak: Float
        /// The limiter's deepest gain (1 when it never acted).
        var deepestGain: Float
        /// The voice's own loudness as written, LUFS, when it was measured (a session levelled
        /// on its voice): the voice layer through the same chain, following the mix's limiter.
        var speechLoudness: Double?
        /// The waveform of what was written, when asked for.
        var waveform: [Float]?
    }

    /// Writes the session's `frames` (a part of it, or all) into `writer`, and `stems` (only of
    /// the whole session) into theirs, each finished.
    static func run(_ prepared: PreparedRender, into writer: OutputWriter, stems: [Stem] = [], gain: Float, ceilingDecibels: Double,
                    frames: Range<Int64>, measuresOutput: Bool, measuresSpeech: Bool = false, stretchPeaks: StretchPeaks? = nil,
                    waveform: WaveformEnvelope? = nil, parallel: Bool, progress: ((RenderProgress) -> Void)?, stopped: (@Sendable () -> Bool)? = nil) throws -> Figures {
        let plan = prepared.plan
        let channels = plan.channels
        precondition(stems.isEmpty || frames == 0..<plan.totalFrames, "stems are of the whole session")
        prepared.assets.tally.record(pass: "write")
        let limiter = TruePeakLimiter(channels: channels, rate: plan.rate, ceilingDecibels: ceilingDecibels)
        let producer = Handoff(try Producer(prepared, gain: gain, limiter: limiter, frames: frames, measuresOutput: measuresOutput,
                                            measuresSpeech: measuresSpeech, stretchPeaks: stretchPeaks, waveform: waveform, stems: stems))
        let pipeline = BlockPipeline(depth: parallel ? 8 : 1, samplesPerBlock: Renderer.blockFrames * channels)
        var written: Int64 = 0
        let total = Int64(frames.count)
        try pipeline.run(onOwnThread: parallel, produce: { block in producer.value.next(into: &block) }) { block in
            if let stopped, stopped() { throw RenderCancelled() }
            try writer.write(block.samples + block.offset * channels, frameCount: block.frames)
            written += Int64(block.frames)
            progress?(RenderProgress(pass: 2, framesDone: written, totalFrames: total))
        }
        let p = producer.value
        // The check waits for the last stretch before the encoder's last packets.
        stretchPeaks?.finish()
        if let failure = p.failure { throw failure }
        try writer.finish()
        for stem in stems { try stem.writer.finish() }
        return Figures(meter: p.meter, truePeak: p.truePeak, samplePeak: p.samplePeak, deepestGain: limiter.deepestGain,
                       speechLoudness: p.speech?.loudness, waveform: waveform?.peaks)
    }

    /// The producing half: the chain's next block into the ring, measured when asked.
    final class Producer {
        /// Made only when the output is measured here (a lossy file is measured as it decodes).
        let meter: LoudnessGate?
        let truePeak: TruePeakMeter
        private(set) var samplePeak: Float = 0
        let chain: MasterChain
        /// The voice following the mix's limiter, when measured.
        let speech: SpeechFollower?
        /// Each stem's layer following the mix's limiter, and its writer.
        private let stems: [(follower: LayerFollower, writer: OutputWriter)]
        /// Where the mix's limiter writes its gains for the layers that follow it (the voice
        /// measured, the stems); nil when none does.
        private let gains: UnsafeMutablePointer<Float>?
        private let ownsGains: Bool
        /// What stopped the stems being written, thrown once the pipeline is done.
        private(set) var failure: Error?
        let measuresOutput: Bool
        /// Where each block's stretch peaks go before it is encoded, when a check picks packets by them.
        let stretchPeaks: StretchPeaks?
        /// Where each block goes for the waveform of what is written, when one is asked for.
        let waveform: WaveformEnvelope?
        /// The frames written; the chain's frame at the start of its next block.
        let frames: Range<Int64>
        private var position: Int64

        /// A producer of `frames`: a part's chain starts `PointRender.warmUp` before it, so the
        /// limiter has settled by the part's first frame, and the frames before it are dropped.
        init(_ prepared: PreparedRender, gain: Float, limiter: TruePeakLimiter, frames: Range<Int64>,
             measuresOutput: Bool, measuresSpeech: Bool, stretchPeaks: StretchPeaks? = nil, waveform: WaveformEnvelope? = nil,
             stems: [Stem] = []) throws(IOError) {
            let plan = prepared.plan
            meter = measuresOutput ? LoudnessGate(channels: plan.channels, rate: plan.rate, withRange: true, binned: true) : nil
            truePeak = TruePeakMeter(channels: plan.channels, rate: plan.rate)
            let start = frames.lowerBound == 0 ? 0 : max(0, frames.lowerBound - PointRender.warmUp.frame(atRate: plan.rate))
            position = start
            chain = MasterChain(plan: plan, assets: prepared.assets, startFrame: start, gain: gain, limiting: .limiter(limiter),
                                blockFrames: Renderer.blockFrames)
            speech = measuresSpeech ? SpeechFollower(prepared, gain: gain, latency: limiter.latency, startFrame: start) : nil
            self.stems = stems.map { stem in
                (LayerFollower(prepared, plan: stem.plan, gain: gain, latency: limiter.latency, startFrame: start), stem.writer)
            }
            ownsGains = speech == nil && !stems.isEmpty
            if ownsGains {
                let own = UnsafeMutablePointer<Float>.allocate(capacity: Renderer.blockFrames)
                own.initialize(repeating: 1, count: Renderer.blockFrames)
                gains = own
            } else {
                gains = speech?.gains
            }
            self.measuresOutput = measuresOutput
            self.stretchPeaks = stretchPeaks
            self.waveform = waveform
            if let stretchPeaks, let meter {
                meter.reportStretches(of: StretchPeaks.stretchFrames) { stretchPeaks.addEnergy($0) }
            }
            self.frames = frames
        }

        deinit { if ownsGains { gains?.deallocate() } }

        /// Takes each stem's next block, after the mix's, and writes its `frames` from `offset`;
        /// false, with `failure` set, when a stem's writer fails.
        private func writeStems(offset: Int, frames: Int) -> Bool {
            guard let gains else { return true }
            for (follower, writer) in stems where follower.next(following: gains) && frames > 0 {
                let start = follower.output + offset * follower.chain.channels
                for i in 0..<(frames * follower.chain.channels) where !start[i].isFinite { start[i] = 0 }
                do {
                    try writer.write(start, frameCount: frames)
                } catch {
                    failure = error
                    return false
                }
            }
            return true
        }

        /// Fills `block` with the next frames to write; false when the part (or the session) is done.
        func next(into block: inout BlockPipeline.Block) -> Bool {
            var offset = 0, count = 0
            while count == 0 {
                guard position < frames.upperBound, let (first, made) = chain.next(into: block.samples, gains: gains) else {
                    return false
                }
                let blockStart = position
                position += Int64(made)
                // Only what lies inside the part.
                let skip = Int(max(0, frames.lowerBound - blockStart))
                offset = first + skip
                count = max(0, Int(min(position, frames.upperBound) - blockStart) - skip)
                speech?.follow(offset: offset, frames: count)
                guard writeStems(offset: offset, frames: count) else { return false }
            }
            block.offset = offset
            block.frames = count
            let frames = count
            let start = block.samples + offset * chain.channels
            if measuresOutput, let meter {
                // A check that picks packets by their stretch peaks finds the peaks as decoded.
                if stretchPeaks == nil {
                    samplePeak = max(samplePeak, SamplePeak.largestMagnitude(start, count: frames * chain.channels))
                    truePeak.add(start, frameCount: frames)
                }
                // The meter hands its stretches' energies to the stretch peaks before they publish them.
                meter.add(start, frameCount: frames)
            }
            stretchPeaks?.add(start, frameCount: frames)
            waveform?.add(start, frameCount: frames)
            return true
        }
    }
}

/// Layers of the mix through the master chain, following the gains the mix's limiter applied to
/// each block: a stem as `WritePass` writes it, the voice whose loudness is measured as written.
final class LayerFollower {
    let chain: MasterChain
    /// The block just taken, `blockFrames` frames.
    let output: UnsafeMutablePointer<Float>

    /// `plan` is the session's, restricted to the layers followed.
    init(_ prepared: PreparedRender, plan: RenderPlan, gain: Float, latency: Int, startFrame: Int64) {
        let n = Renderer.blockFrames
        chain = MasterChain(plan: plan, assets: prepared.assets, startFrame: startFrame, gain: gain, limiting: .follow(latency: latency),
                            blockFrames: n)
        output = .allocate(capacity: n * plan.channels)
        output.initialize(repeating: 0, count: n * plan.channels)
    }

    deinit { output.deallocate() }

    /// Takes the layers' next block into `output`, after the mix's, following `gains`; false
    /// once the session is done.
    func next(following gains: UnsafePointer<Float>) -> Bool {
        chain.next(into: output, following: gains) != nil
    }
}

/// The voice layer following the mix's limiter (`LayerFollower`): what the voice's own loudness
/// is in the output (its stem's).
final class SpeechFollower {
    let voice: LayerFollower
    let gate: LoudnessGate
    /// The mix's limiter writes its gains here, block by block.
    let gains: UnsafeMutablePointer<Float>

    init(_ prepared: PreparedRender, gain: Float, latency: Int, startFrame: Int64) {
        voice = LayerFollower(prepared, plan: prepared.plan.restricted(to: [.voice]), gain: gain, latency: latency, startFrame: startFrame)
        gate = LoudnessGate(channels: prepared.plan.channels, rate: prepared.plan.rate)
        gains = .allocate(capacity: Renderer.blockFrames)
        gains.initialize(repeating: 1, count: Renderer.blockFrames)
    }

    deinit { gains.deallocate() }

    /// Takes the voice's next block, after the mix's, and measures its `frames` from `offset`
    /// (the frames of it that are written) into `gate`, its own unless given.
    func follow(offset: Int, frames: Int, into gate: LoudnessGate? = nil) {
        guard voice.next(following: gains), frames > 0 else { return }
        (gate ?? self.gate).add(voice.output + offset * voice.chain.channels, frameCount: frames)
    }

    /// The voice's integrated loudness as written, LUFS.
    var loudness: Double { gate.integratedLoudness }
}

/// When a lossy file is written again: a codec adds its own peaks and shifts the loudness a
/// little, so a lossy file is measured as it decodes, and when it breaks the ceiling or misses the
/// target it is written again, with the headroom under the ceiling raised by what it went over
/// (and 0.3 dB more) and the gain corrected by what it missed (raised only when it held the
/// ceiling), at most `maximumRetries` times; a file still over the ceiling then is written once
/// more as the write that held it closest to the target was.
struct LossyRetryPolicy {
    /// The ceiling and the target, as the listener gets them.
    let ceilingDBTP: Double
    let targetLUFS: Double
    /// The gain pass 1 chose, in dB; the correction never takes the whole past `maximumGainDecibels`.
    let gainDecibels: Double
    let maximumGainDecibels: Double
    let maximumRetries: Int
    let loudnessTolerance: Double
    /// The codec headroom kept under the ceiling now, in dB.
    private(set) var headroomDecibels: Double
    /// The correction added to the gain now, in dB.
    private(set) var correctionDecibels = 0.0
    /// The writes made again so far.
    private(set) var retries = 0
    /// The writes that went over the ceiling so far.
    private var overs = 0
    /// The write that held the ceiling closest to the target: its headroom, its correction and
    /// what it missed the target by.
    private var best: (headroom: Double, correction: Double, off: Double)?
    /// True once the settings of `best` were taken back for a last write.
    private(set) var restored = false

    init(ceilingDBTP: Double, targetLUFS: Double, gainDecibels: Double, headroomDecibels: Double,
         maximumGainDecibels: Double = RenderJob.maximumGainDecibels,
         maximumRetries: Int = DecodedCheck.maximumRetries, loudnessTolerance: Double = DecodedCheck.loudnessTolerance) {
        self.ceilingDBTP = ceilingDBTP
        self.targetLUFS = targetLUFS
        self.gainDecibels = gainDecibels
        self.headroomDecibels = headroomDecibels
        self.maximumGainDecibels = maximumGainDecibels
        self.maximumRetries = maximumRetries
        self.loudnessTolerance = loudnessTolerance
    }

    /// The limiter's ceiling for the next write, in dBTP.
    var limiterCeilingDecibels: Double { ceilingDBTP - headroomDecibels }

    /// Takes what the written file decoded to; true when it is to be written again, with the
    /// headroom and the correction already adjusted.
    mutating func retry(after decoded: DecodedFigures) -> Bool {
        // The write that restored an earlier one is the last.
        if restored { return false }
        let over = decoded.truePeak - ceilingDBTP
        let off = targetLUFS - decoded.loudness
        let loudnessMissed = decoded.loudness.isFinite && abs(off) > loudnessTolerance
        if over <= 0, best.map({ abs(off) < abs($0.off) }) ?? true {
            best = (headroomDecibels, correctionDecibels, off)
        }
        guard retries < maximumRetries else {
            // Out of writes and over: the write that held the ceiling closest to the target is
            // made again (the same gain and ceiling give the same bytes).
            guard over > 0, let best else { return false }
            headroomDecibels = best.headroom
            correctionDecibels = best.correction
            restored = true
            retries += 1
            return true
        }
        // The ceiling comes first: the gain is raised only after a write that held it (the
        // codec's peaks move by more than a raise: a 16-kHz OGG went from 2 dB under the ceiling
        // to 0.3 dB over on a 0.8-dB raise; a raise that goes over on the last write is taken
        // back as above).
        let raises = loudnessMissed && off > 0 && over <= 0
        let lowers = loudnessMissed && off < 0
        guard over > 0 || raises || lowers else { return false }
        retries += 1
        if over > 0 {
            headroomDecibels += over + 0.3
            // Over again after the headroom was raised: the peak that goes over is the codec's
            // on sound under the limiter's ceiling (a 22-kHz OGG stayed 0.25 dB over with the
            // ceiling 0.6 dB lower), which only a lower gain brings down.
            if overs > 0 { correctionDecibels -= over + 0.3 }
            overs += 1
        }
        if raises || lowers {
            correctionDecibels += min(off, maximumGainDecibels - gainDecibels - correctionDecibels)
        }
        return true
    }
}
