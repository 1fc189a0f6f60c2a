import Foundation
import Synchronization
import MedrenderCore

/// Pass 1: the integrated loudness of the mix as it will be, before the gain: the master chain up
/// to the gain (`MasterChain` with no gain and no limiter), measured in parts that are combined by
/// their gating blocks. A session with a voice is levelled on the voice: beside the mix, the same
/// chain over the voice layer alone is measured (`Measure.speech`), as dialogue is measured for
/// broadcast and streaming (ATSC A/85's anchor, the voice stem's own loudness over its spoken parts:
/// BS.1770's gates leave out the silence between lines).
///
/// The parts go two by two, each pair on one thread with its two streams' loudness filters side by
/// side (`LoudnessGate.add(_:_:_:_:)`, twice the work per cycle), the pairs side by side when
/// `parallel`, one after the other otherwise; the result is the same.
enum LoudnessPass {
    /// What pass 1 measures of the mix before the gain.
    struct Measure: Sendable, Equatable {
        /// Integrated loudness, LUFS (−∞ for silence).
        var loudness: Double
        /// The largest sample, as a gain (1 is full scale).
        var peak: Float
        /// The voice layer's own integrated loudness, LUFS; −∞ for a session with no voice.
        var speech: Double = -.infinity
        /// Whether the whole mix was measured; false when pass 1 measured the voice alone
        /// (`measureVoice`), the mix's loudness and peak then unknown (−∞ and 0).
        var wholeMix = true

        /// Whether the session is levelled on its voice.
        var levelsSpeech: Bool { speech.isFinite }

        /// The peak, in dBFS.
        var peakDecibels: Double { peak > 0 ? gainToDecibels(Double(peak)) : -.infinity }

        /// The gain that brings the mix to `plan`'s target, in dB: the voice's loudness to it in
        /// a session with a voice, else the mix's; at most `RenderJob.maximumGainDecibels`, and
        /// none for a mix too quiet to measure.
        func gainDecibels(for plan: RenderPlan) -> Double {
            let anchor = levelsSpeech ? speech : loudness
            return anchor.isFinite ? min(RenderJob.maximumGainDecibels, plan.master.loudnessLUFS - anchor) : 0
        }

    }

    /// Pass 1 is split into this many parts, always: the split, and so the measured loudness and
    /// the output's bytes, never depend on the machine's cores.
    static let parts = 4

    /// The frames where the parts start, and the session's end: on whole seconds, so the meter's
    /// 100-ms blocks fall the same way in each part.
    static func cuts(totalFrames total: Int64, rate: Int) -> [Int64] {
        let second = Int64(rate)
        var bounds: [Int64] = [0]
        for k in 1..<parts {
            let b = total * Int64(k) / Int64(parts) / second * second
            if b > bounds.last! { bounds.append(b) }
        }
        bounds.append(total)
        return bounds
    }

    /// The mix's integrated loudness and peak for a render that starts from it (listening from a
    /// point, the video's audio): the job's loudness cache's figure when it has one, else pass 1
    /// over the whole session, recorded in the cache.
    static func measuredOrCached(_ prepared: PreparedRender) -> Measure {
        let job = prepared.job
        let key = LoudnessCache.Key(job: job)
        if let known = job.loudnessCache?.measured(key), known.wholeMix { return known }
        let measured = measure(prepared, parallel: job.threads > 1, progress: nil)
        job.loudnessCache?.record(measured, for: key)
        return measured
    }

    /// `stopped` is asked every block; once it says true the parts end where they are and the
    /// figure returned means nothing (the caller asks `stopped` again before using it).
    static func measure(_ prepared: PreparedRender, parallel: Bool, progress: ((RenderProgress) -> Void)?,
                        stopped: (@Sendable () -> Bool)? = nil) -> Measure {
        let plan = prepared.plan, assets = prepared.assets
        assets.tally.record(pass: "measure")
        let total = plan.totalFrames, blockFrames = Renderer.blockFrames
        let cuts = Self.cuts(totalFrames: total, rate: plan.rate), parts = cuts.count - 1
        // LoudnessGate measures as libebur128 does (BS.1770), several times faster; each part's
        // gate is made before the threads start and is used by one thread only.
        let gates = Handoff((0..<parts).map { _ in LoudnessGate(channels: plan.channels, rate: plan.rate) })
        let voice = SpeechMeter(plan: plan, assets: assets, cuts: cuts)
        let counter = ProgressCounter(parts: parts)
        let peaks = PartPeaks(parts: parts)
        let report = Handoff(progress)
        let pairs = (parts + 1) / 2
        let measurePair: @Sendable (Int) -> Void = { pair in
            let members = Array((pair * 2)..<min(parts, pair * 2 + 2))
            let chains = members.map { MasterChain(plan: plan, assets: assets, startFrame: cuts[$0], blockFrames: blockFrames) }
            var buffers = members.map { _ in [Float](repeating: 0, count: blockFrames * plan.channels) }
            var at = members.map { cuts[$0] }
            let ends = members.map { cuts[$0 + 1] }
            let g = members.map { gates.value[$0] }
            var counts = [Int](repeating: 0, count: members.count)  // filled in place: nothing allocated per block
            while zip(at, ends).contains(where: { $0 < $1 }) {
                if let stopped, stopped() { return }
                for k in members.indices { counts[k] = Int(min(Int64(blockFrames), ends[k] - at[k])) }
                for k in members.indices where counts[k] > 0 {
                    let peak = buffers[k].withUnsafeMutableBufferPointer { samples -> Float in
                        chains[k].render(into: samples.baseAddress!, frameCount: counts[k])
                        return SamplePeak.largestMagnitude(samples.baseAddress!, count: counts[k] * plan.channels)
                    }
                    if peak > 0 { peaks.record(part: members[k], peak: peak) }
                    voice?.measure(part: members[k], frameCount: counts[k])
                }
                if members.count == 2, plan.channels == 2, counts[0] == counts[1] {
                    buffers[0].withUnsafeBufferPointer { a in
                        buffers[1].withUnsafeBufferPointer { b in
                            LoudnessGate.add(g[0], a.baseAddress!, g[1], b.baseAddress!, frameCount: counts[0])
                        }
                    }
                } else {
                    for k in members.indices where counts[k] > 0 {
                        buffers[k].withUnsafeBufferPointer { g[k].add($0.baseAddress!, frameCount: counts[k]) }
                    }
                }
                for k in members.indices { at[k] += Int64(counts[k]) }
                for (k, part) in members.enumerated() { counter.record(part: part, framesDone: at[k] - cuts[part]) }
                let sum = counter.total
                // Side by side, only the first pair reports, so the callback is never run on two
                // threads at once.
                if pair == 0 || !parallel { report.value?(RenderProgress(pass: 1, framesDone: sum, totalFrames: total)) }
            }
        }
        if parallel {
            DispatchQueue.concurrentPerform(iterations: pairs, execute: measurePair)
        } else {
            for pair in 0..<pairs { measurePair(pair) }
        }
        return Measure(loudness: LoudnessGate.integratedLoudness(of: gates.value), peak: peaks.largest,
                       speech: voice?.loudness ?? -.infinity)
    }
}

extension LoudnessPass {
    /// Pass 1 for a render that needs only the gain of a session levelled on its voice (a lossy
    /// file: it is checked as it decodes and written again when it misses, so the mix's peak,
    /// which decides a limited pass, is not needed): the voice layer alone, in pass 1's parts, the
    /// same figure `measure` gives for it, without mixing the session. Nil for a session with no
    /// voice, or a silent one, whose gain the whole mix sets. `stopped` as for `measure`.
    static func measureVoice(_ prepared: PreparedRender, parallel: Bool, progress: ((RenderProgress) -> Void)?,
                             stopped: (@Sendable () -> Bool)? = nil) -> Measure? {
        let plan = prepared.plan, total = plan.totalFrames
        let cuts = Self.cuts(totalFrames: total, rate: plan.rate), parts = cuts.count - 1
        guard let voice = SpeechMeter(plan: plan, assets: prepared.assets, cuts: cuts) else { return nil }
        let counter = ProgressCounter(parts: parts)
        let report = Handoff(progress)
        let measurePart: @Sendable (Int) -> Void = { part in
            var at = cuts[part]
            while at < cuts[part + 1] {
                if let stopped, stopped() { return }
                // The blocks `measure` gives the voice, so the figure is the same to the bit.
                let count = Int(min(Int64(Renderer.blockFrames), cuts[part + 1] - at))
                voice.measure(part: part, frameCount: count)
                at += Int64(count)
                counter.record(part: part, framesDone: at - cuts[part])
                // Side by side, only the first part reports.
                if part == 0 || !parallel { report.value?(RenderProgress(pass: 1, framesDone: counter.total, totalFrames: total)) }
            }
        }
        if parallel {
            DispatchQueue.concurrentPerform(iterations: parts, execute: measurePart)
        } else {
            for part in 0..<parts { measurePart(part) }
        }
        let speech = voice.loudness
        return speech.isFinite ? Measure(loudness: -.infinity, peak: 0, speech: speech, wholeMix: false) : nil
    }
}

/// Pass 1's measure of the voice alone: the master chain over the voice layer, part by part, each
/// part's chain, buffer and gate used by one thread only.
final class SpeechMeter: Sendable {
    private final class Part: @unchecked Sendable {
        let chain: MasterChain
        let gate: LoudnessGate
        var buffer: [Float]

        init(plan: RenderPlan, assets: MixAssets, startFrame: Int64) {
            chain = MasterChain(plan: plan, assets: assets, startFrame: startFrame, blockFrames: Renderer.blockFrames)
            gate = LoudnessGate(channels: plan.channels, rate: plan.rate)
            buffer = [Float](repeating: 0, count: Renderer.blockFrames * plan.channels)
        }
    }

    private let parts: [Part]

    /// Nil for a session with no voice clip in its mix. `cuts` are pass 1's.
    init?(plan: RenderPlan, assets: MixAssets, cuts: [Int64]) {
        guard plan.layers.contains(.voice), plan.clips.contains(where: { $0.layer == .voice }) else { return nil }
        let voice = plan.restricted(to: [.voice])
        parts = cuts.dropLast().map { Part(plan: voice, assets: assets, startFrame: $0) }
    }

    /// Mixes and measures `part`'s next `frameCount` frames of the voice.
    func measure(part: Int, frameCount: Int) {
        let part = parts[part]
        guard frameCount > 0 else { return }
        part.buffer.withUnsafeMutableBufferPointer { samples in
            part.chain.render(into: samples.baseAddress!, frameCount: frameCount)
            part.gate.add(samples.baseAddress!, frameCount: frameCount)
        }
    }

    /// The voice's integrated loudness over every part, LUFS.
    var loudness: Double { LoudnessGate.integratedLoudness(of: parts.map(\.gate)) }
}

/// The largest sample of each part of pass 1; parts record from their own threads.
final class PartPeaks: Sendable {
    private let peaks: Mutex<[Float]>

    init(parts: Int) { peaks = Mutex(Array(repeating: 0, count: parts)) }

    func record(part: Int, peak: Float) { peaks.withLock { $0[part] = max($0[part], peak) } }

    var largest: Float { peaks.withLock { $0.max() ?? 0 } }
}

/// Frames done by each part of a pass, summed for progress; parts report from their own threads.
final class ProgressCounter: Sendable {
    private let done: Mutex<[Int64]>

    init(parts: Int) { done = Mutex(Array(repeating: 0, count: parts)) }

    func record(part: Int, framesDone: Int64) { done.withLock { $0[part] = framesDone } }

    var total: Int64 { done.withLock { $0.reduce(0, +) } }
}
