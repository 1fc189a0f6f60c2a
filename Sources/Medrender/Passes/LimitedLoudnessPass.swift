import Foundation
import MedrenderCore

/// Between pass 1 and pass 2, for an output written once (a WAV or a FLAC, file or stream; an OGG
/// streamed as it is encoded, at 44.1 kHz and up), not one written ahead that is measured as it
/// decodes and written again (an OGG, Opus or MP3 file; an Opus, MP3 or slower OGG stream): the master chain with the gain and the limiter, measured and
/// not written, so that what the limiter takes off the loudness is known before anything is
/// written, and the gain raised by it. Pass 1 measures the mix before the gain; when the gain
/// brings its peaks well over the ceiling, the limiter lowers the loudness too (0.6 LU at
/// −12 LUFS on the stock presets), which pass 1 cannot see.
///
/// The session is measured in pass 1's parts (`LoudnessPass.cuts`), side by side when `parallel`;
/// each part's limiter starts at rest a second before its part and that second is not measured,
/// so the figure is the whole chain's within a few hundredths of a LU, whatever the cores.
enum LimitedLoudnessPass {
    /// The limiter takes more than this off the mix's largest sample (pass 1's peak after the
    /// gain, against the limiter's ceiling) before the pass is run: under it, the limiter touches
    /// only the loudest moments and the loudness moves by hundredths of a LU.
    static let thresholdDecibels = 1.0
    /// What the loudness may stay under the target before the gain is raised at all: under it,
    /// the output is left as pass 1 alone makes it (a file and a stream of the same render then
    /// keep the same bytes).
    static let startToleranceLU = 0.3
    /// Once raised, how close to the target the gain is brought.
    static let toleranceLU = 0.1
    /// How many times the limited chain is measured at most (each raise makes the limiter work a
    /// little more, so the gain is raised again by what the last measure shows).
    static let maximumSteps = 3
    /// The most the gain is raised, in dB. Past it the limiter would be crushing the peaks, not
    /// catching them (cue tones alone at −6 LUFS would need +10 dB, all of it in the limiter), so
    /// the output stays under its target and the report says that the ceiling holds it down.
    static let maximumCorrectionDecibels = 3.0
    /// How long each part's limiter runs before its part.
    static let preroll = SessionTime.seconds(1)

    /// The loudness gain, in dB, of a render written once (`limited`): pass 1's, raised by what
    /// the limiter at `ceilingDecibels` will take off the loudness, when it will work enough to
    /// matter. Not `limited` (a lossy file, measured as it decodes and written again): pass 1's.
    /// Every render of a session takes its gain here: the render itself, a render from a point,
    /// a video's audio. Throws `RenderCancelled` once `stopped` says so.
    static func gainDecibels(_ prepared: PreparedRender, mix: LoudnessPass.Measure, ceilingDecibels: Double, limited: Bool = true,
                             parallel: Bool, stopped: (@Sendable () -> Bool)?) throws -> Double {
        let passOne = mix.gainDecibels(for: prepared.plan)
        guard limited, isNeeded(peakDecibels: mix.peakDecibels, gainDecibels: passOne, ceilingDecibels: ceilingDecibels) else {
            return passOne
        }
        guard let raise = correction(prepared, gainDecibels: passOne, speech: mix.levelsSpeech, ceilingDecibels: ceilingDecibels,
                                     parallel: parallel, stopped: stopped) else { throw RenderCancelled() }
        return passOne + raise
    }

    /// The same for a render nothing stops (a render from a point, a video's audio).
    static func gainDecibels(_ prepared: PreparedRender, mix: LoudnessPass.Measure, ceilingDecibels: Double, parallel: Bool) -> Double {
        let passOne = mix.gainDecibels(for: prepared.plan)
        guard isNeeded(peakDecibels: mix.peakDecibels, gainDecibels: passOne, ceilingDecibels: ceilingDecibels) else { return passOne }
        // Never nil: only `stopped` ends it early.
        return passOne + (correction(prepared, gainDecibels: passOne, speech: mix.levelsSpeech, ceilingDecibels: ceilingDecibels,
                                     parallel: parallel, stopped: nil) ?? 0)
    }

    /// Whether the limiter will work enough at this gain to be measured first.
    static func isNeeded(peakDecibels: Double, gainDecibels: Double, ceilingDecibels: Double) -> Bool {
        peakDecibels.isFinite && peakDecibels + gainDecibels - ceilingDecibels > thresholdDecibels
    }

    /// The correction, in dB, to add to `gainDecibels` so that the limited chain reaches the
    /// plan's target, the mix's or, for a session levelled on its voice (`speech`), the voice's
    /// (0 when it does already; at most `maximumCorrectionDecibels`, and the gain at most
    /// `RenderJob.maximumGainDecibels`); nil once `stopped` says so.
    static func correction(_ prepared: PreparedRender, gainDecibels: Double, speech: Bool, ceilingDecibels: Double, parallel: Bool,
                           stopped: (@Sendable () -> Bool)?) -> Double? {
        let targetLUFS = prepared.plan.master.loudnessLUFS, maximumGainDecibels = RenderJob.maximumGainDecibels
        var correction = 0.0
        // The limiter gives back only part of each raise: after the first step, the next is
        // scaled by how much of the last came through (a secant step).
        var last: (correction: Double, loudness: Double)?
        for _ in 0..<maximumSteps {
            let gain = Float(decibelsToGain(gainDecibels + correction))
            let loudness = measure(prepared, gain: gain, ceilingDecibels: ceilingDecibels, speech: speech, parallel: parallel, stopped: stopped)
            if let stopped, stopped() { return nil }
            let short = targetLUFS - loudness
            guard loudness.isFinite, short > (last == nil ? startToleranceLU : toleranceLU) else { break }
            var through = 1.0
            if let last, correction > last.correction {
                through = min(1, max(0.25, (loudness - last.loudness) / (correction - last.correction)))
            }
            last = (correction, loudness)
            let raised = min(correction + short / through, maximumCorrectionDecibels, maximumGainDecibels - gainDecibels)
            guard raised > correction else { break }
            correction = raised
        }
        return correction
    }

    /// The integrated loudness of the chain with `gain` and a limiter at `ceilingDecibels`, in LUFS:
    /// of the whole mix, or, with `speech`, of the voice following that limiter.
    static func measure(_ prepared: PreparedRender, gain: Float, ceilingDecibels: Double, speech: Bool = false, parallel: Bool,
                        stopped: (@Sendable () -> Bool)?) -> Double {
        let plan = prepared.plan
        prepared.assets.tally.record(pass: "limited")
        let cuts = LoudnessPass.cuts(totalFrames: plan.totalFrames, rate: plan.rate)
        let parts = cuts.count - 1
        let gates = Handoff((0..<parts).map { _ in LoudnessGate(channels: plan.channels, rate: plan.rate) })
        let measurePart: @Sendable (Int) -> Void = { part in
            measure(prepared, part: cuts[part]..<cuts[part + 1], gain: gain, ceilingDecibels: ceilingDecibels, speech: speech,
                    into: gates.value[part], stopped: stopped)
        }
        if parallel {
            DispatchQueue.concurrentPerform(iterations: parts, execute: measurePart)
        } else {
            for part in 0..<parts { measurePart(part) }
        }
        return LoudnessGate.integratedLoudness(of: gates.value)
    }

    /// Runs the limited chain over `part` (from `preroll` before it) into `gate`.
    private static func measure(_ prepared: PreparedRender, part: Range<Int64>, gain: Float, ceilingDecibels: Double, speech: Bool,
                                into gate: LoudnessGate, stopped: (@Sendable () -> Bool)?) {
        let plan = prepared.plan, channels = plan.channels
        let start = max(0, part.lowerBound - preroll.frame(atRate: plan.rate))
        let limiter = TruePeakLimiter(channels: channels, rate: plan.rate, ceilingDecibels: ceilingDecibels)
        let chain = MasterChain(plan: plan, assets: prepared.assets, startFrame: start, gain: gain, limiting: .limiter(limiter),
                                blockFrames: Renderer.blockFrames)
        let voice = speech ? SpeechFollower(prepared, gain: gain, latency: limiter.latency, startFrame: start) : nil
        var buffer = [Float](repeating: 0, count: Renderer.blockFrames * channels)
        var at = start
        while at < part.upperBound {
            if let stopped, stopped() { return }
            let got = buffer.withUnsafeMutableBufferPointer { samples -> Int? in
                guard let (offset, frames) = chain.next(into: samples.baseAddress!, gains: voice?.gains) else { return nil }
                // The frames [at, at + frames) of the session; only those of this part count.
                let from = max(at, part.lowerBound), to = max(from, min(at + Int64(frames), part.upperBound))
                let first = offset + Int(from - at), count = Int(to - from)
                if let voice {
                    voice.follow(offset: first, frames: count, into: gate)
                } else if count > 0 {
                    gate.add(samples.baseAddress! + first * channels, frameCount: count)
                }
                return frames
            }
            guard let got else { break }
            at += Int64(got)
        }
    }
}
