/// A voice clip's peaks held near its words: the peaks of a spoken line more than its crest over
/// its own loudness are brought down to there by the true-peak limiter, as a broadcast voice
/// chain does, before the clip is mixed. The crest leaves the master limiter 2 dB under the
/// ceiling for what sounds under the words, at most `crestDecibels`: at the default target
/// (−18 LUFS under a −1 dBTP ceiling) 15 dB, where a neural voice's plosives came 19–20 dB over
/// its loudness and the master limiter took 1.3 dB off its lines; at −12 LUFS 9 dB, where the
/// master limiter took 0.9 LU off the words, which its gain could not give back.
public enum VoicePeaks {
    /// How far over its integrated loudness a voice clip's true peak may come, in dB, at most.
    public static let crestDecibels = 15.0

    /// The crest for a session levelled on its voice at `targetLUFS` under `ceilingDBTP`.
    public static func crest(targetLUFS: Double, ceilingDBTP: Double) -> Double {
        min(crestDecibels, max(6, ceilingDBTP - targetLUFS - 2))
    }

    /// `samples` (interleaved, `channels`, at `rate`) with their true peaks at most `crest` dB
    /// over `loudnessLUFS`; the same samples when none is over.
    public static func held(_ samples: [Float], channels: Int, rate: Int, loudnessLUFS: Double, crest: Double = crestDecibels) -> [Float] {
        let ceiling = loudnessLUFS + crest
        let frames = samples.count / channels
        guard frames > 0, gainToDecibels(Double(samples.lazy.map(abs).max() ?? 0)) > ceiling - 3 else { return samples }
        let limiter = TruePeakLimiter(channels: channels, rate: rate, ceilingDecibels: ceiling)
        // The limiter gives each frame `latency` frames late: fed the clip and as many zeros after,
        // its output from `latency` on is the clip.
        let padded = samples + [Float](repeating: 0, count: limiter.latency * channels)
        var output = [Float](repeating: 0, count: padded.count)
        let block = 4096
        padded.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var at = 0
                while at < frames + limiter.latency {
                    let n = min(block, frames + limiter.latency - at)
                    limiter.process(input.baseAddress! + at * channels, out.baseAddress! + at * channels, frameCount: n)
                    at += n
                }
            }
        }
        return Array(output[(limiter.latency * channels)...])
    }
}
