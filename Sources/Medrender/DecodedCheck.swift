import Foundation
import MedrenderCore
import MedrenderIO

/// What a lossy file decodes to: a codec adds its own peaks (it drops and shifts parts of the
/// spectrum) and shifts the loudness a little, most at low rates. The ceiling is kept with a
/// codec headroom under it, and a file is decoded back once written: when it still breaks the
/// ceiling, or misses the loudness target, pass 2 runs again with the headroom and the gain
/// corrected by what was measured.
enum DecodedCheck {
    /// The headroom kept under the ceiling for a format at a rate, in dB: from renders of the
    /// presets at -12 to -23 LUFS decoded by ffmpeg, the most a codec overshot the limiter's
    /// ceiling, rounded up (OGG 1.3 dB at 16 kHz and 0.5 at 48 kHz; MP3 1.3 dB at 8 kHz and 0.6 at
    /// 48 kHz; Opus, which always decodes at 48 kHz, 0.5 dB).
    static func headroomDecibels(_ format: OutputFormat, rate: Int) -> Double {
        switch format {
        case .ogg: rate <= 16000 ? 1.5 : 1.0
        case .mp3: rate <= 16000 ? 1.5 : 1.0
        case .opus: rate <= 16000 ? 1.0 : 0.6
        case .wav, .flac: 0
        }
    }

    /// Loudness off its target by more than this, as decoded, is corrected by a second pass 2.
    static let loudnessTolerance = 0.45
    /// How many times pass 2 may run again.
    static let maximumRetries = 3

    /// The integrated loudness, loudness range, true peak and sample peak of an encoded file, as
    /// it decodes, read a block at a time (memory does not grow with its length).
    static func measure(fileAt path: String) throws -> (loudness: Double, range: Double, truePeak: Double, samplePeak: Float) {
        let reader = try SoundFileReader(path: path)
        let meter = try LoudnessMeter(channels: reader.channels, rate: reader.rate, withRange: true)
        let peak = TruePeakMeter(channels: reader.channels, rate: reader.rate)
        var sample: Float = 0
        var buffer = [Float](repeating: 0, count: Renderer.blockFrames * reader.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) -> Int in
                let n = try reader.read(into: p.baseAddress!, frameCount: Renderer.blockFrames)
                if n > 0 {
                    try meter.add(p.baseAddress!, frameCount: n)
                    peak.add(p.baseAddress!, frameCount: n)
                    for i in 0..<(n * reader.channels) { sample = max(sample, abs(p[i])) }
                }
                return n
            }
            if n == 0 { break }
        }
        return (try meter.integratedLoudness(), try meter.loudnessRange(), peak.peakDecibels, sample)
    }
}
