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

    /// Whether a stream of `format` at `rate` is sent as it is encoded. An OGG under 44.1 kHz is
    /// not: there the codec's own peaks went 0.2–2 dB over the ceiling as decoded on the stock
    /// presets at −12 LUFS (up to 3.3 dB over the limiter's ceiling at 16 kHz, past any headroom
    /// that keeps the loudness), so the stream is written ahead into a temporary file, measured as
    /// it decodes and written again when it goes over, as a file is, and sent once done: the bytes
    /// of a file of the same render, later. (WAV streams as it goes; FLAC, Opus and MP3 always
    /// follow when done, as they seek while they are written.)
    static func streamsAsEncoded(_ format: OutputFormat, rate: Int) -> Bool {
        switch format {
        case .ogg: rate >= 44100
        case .wav: true
        case .flac, .opus, .mp3: false
        }
    }

    /// Whether an output is checked by decoding only the packets that can hold its peaks, and a
    /// sample to weigh what the codec does to the loudness (`SelectiveDecode`), rather than all
    /// of them: an OGG at 44.1 kHz and over, where that gives the loudness as decoded within
    /// `selectiveLoudnessError`. Under 44.1 kHz every packet is decoded: the codec moves the
    /// loudness more there, and the retry corrects what it moves.
    static func decodesSelectively(_ format: OutputFormat, rate: Int) -> Bool {
        if case .ogg = format { return rate >= 44100 }
        return false
    }

    /// How far under the largest sample so far (before encoding) the frames a packet depends on
    /// may peak and the packet still be decoded, dB: the most any render of the stock library at
    /// −12, −16 and −18 LUFS needed (what `WholeDecode.Required` gives: 2.05 dB, at 8 kHz, in
    /// 26-s renders; 1.2 dB in 30-s ones), with 2 dB more.
    static let selectionMarginDecibels = 4.0

    /// The most the loudness a selective check gives (`RenderJob.decodedLoudness`) is from the
    /// loudness as decoded, LU, over the stock library at −12, −16 and −18 LUFS at 44.1 and
    /// 48 kHz (0.20 measured in 26-s renders, 0.13 in 30-s ones; what went into the encoder was up
    /// to 0.32 LU from it): a test holds it.
    static let selectiveLoudnessError = 0.3

    /// Loudness off its target by more than this, as decoded, is corrected by writing the file again.
    static let loudnessTolerance = 0.45
    /// How many times pass 2 may run again to correct the file (one more write may then restore
    /// the best of them: `LossyRetryPolicy`).
    static let maximumRetries = 3

    /// The rate a player decodes a format at, when it is not the file's own: Opus always decodes
    /// at 48 kHz (libsndfile gives the rate it was encoded from).
    static func playbackRate(_ format: OutputFormat) -> Int? {
        if case .opus = format { return 48000 }
        return nil
    }

    /// The integrated loudness, loudness range, true peak and sample peak of an encoded file, as
    /// it decodes, read a block at a time (memory does not grow with its length); at
    /// `playbackRate` when a player decodes it at that rate (an Opus file is decoded at it, as a
    /// player decodes it, rather than at its own rate and resampled).
    /// `stopped` is asked every block: a stream whose reader has gone ends the check there.
    static func measure(fileAt path: String, playbackRate: Int? = nil, stopped: (@Sendable () -> Bool)? = nil) throws -> DecodedFigures {
        let reader = try SoundFileReader(path: path, opusRate: playbackRate)
        let rate = playbackRate ?? reader.rate
        let measure = try DecodedMeasure(channels: reader.channels, rate: rate)
        let resampler = rate == reader.rate ? nil : try Resampler(channels: reader.channels)
        let ratio = Double(rate) / Double(reader.rate)
        var buffer = [Float](repeating: 0, count: Renderer.blockFrames * reader.channels)
        while true {
            if let stopped, stopped() { throw RenderCancelled() }
            let n = try buffer.withUnsafeMutableBufferPointer { (p) throws -> Int in
                let n = try reader.read(into: p.baseAddress!, frameCount: Renderer.blockFrames)
                if let resampler {
                    try resampler.process(p.baseAddress!, frameCount: n, ratio: ratio, endOfInput: n == 0) { try measure.add($0, frameCount: $1) }
                } else if n > 0 {
                    try measure.add(p.baseAddress!, frameCount: n)
                }
                return n
            }
            if n == 0 { break }
        }
        return try measure.figures()
    }
}

/// What a file decodes to: integrated loudness and loudness range, true peak, sample peak.
struct DecodedFigures: Sendable {
    var loudness: Double
    var range: Double
    var truePeak: Double
    var samplePeak: Float
}

/// Measures decoded audio a block at a time.
final class DecodedMeasure {
    private let meter: LoudnessGate
    private let peak: TruePeakMeter
    private let channels: Int
    private var sample: Float = 0

    init(channels: Int, rate: Int) throws {
        self.channels = channels
        meter = LoudnessGate(channels: channels, rate: rate, withRange: true, binned: true)
        peak = TruePeakMeter(channels: channels, rate: rate)
    }

    func add(_ frames: UnsafePointer<Float>, frameCount: Int) throws {
        meter.add(frames, frameCount: frameCount)
        peak.add(frames, frameCount: frameCount)
        sample = max(sample, SamplePeak.largestMagnitude(frames, count: frameCount * channels))
    }

    /// The true peak so far, linear, and the sample peak so far.
    var truePeakLinear: Float { peak.peak }
    var samplePeak: Float { sample }

    func figures() throws -> DecodedFigures {
        DecodedFigures(loudness: meter.integratedLoudness, range: meter.loudnessRange, truePeak: peak.peakDecibels,
                       samplePeak: sample)
    }
}
