import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// A level in a preset means the same loudness in mono and in stereo: a voice set to −20 LUFS plays
/// at −20 LUFS, a stereo bed at −26 keeps its −26 folded into mono. Measured on the stems, which
/// carry the mix's gain and no limiter: a stem's loudness less the gain is its level.
@Suite struct LevelTests {
    static let yaml = """
        pattern: 4-0-4-0
        settle: 2
        closing: 3
        cues: { inhale: none, exhale: none }
        voice: { clips: [ { sound: voice-intro, at: 5 }, { sound: voice-outro, at: 25 } ], level: -20, duck: 0 }
        ambience: { beds: [ { sound: rain, level: -26 } ], fade-in: 0, fade-out: 0 }
        master: { fade-out: 0 }
        """

    static func loudness(_ path: String) throws -> Double {
        let (rate, channels, samples) = try readSound(path)
        let meter = try LoudnessMeter(channels: channels, rate: rate)
        try samples.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frameCount: samples.count / channels) }
        return try meter.integratedLoudness()
    }

    @Test(arguments: [1, 2])
    func voiceAndBedPlayAtTheirLevels(channels: Int) throws {
        let dir = TemporaryDirectory("levels")
        let stems = dir.path + "/stems"
        try FileManager.default.createDirectory(atPath: stems, withIntermediateDirectories: true)
        var req = try request(Self.yaml, minutes: 1, rate: 16000, layers: [.voice, .ambience], format: .wav(.float32),
                              output: dir.file("mix.wav"), dir: dir)
        req.options.channels = channels
        req.stemsDirectory = stems
        let report = try Renderer.render(req)
        let voice = try Self.loudness(stems + "/mix-voice.wav") - report.gainDecibels
        let bed = try Self.loudness(stems + "/mix-ambience.wav") - report.gainDecibels
        #expect(abs(voice - -20) < 0.3, "voice at \(voice) LUFS in \(channels) channel(s)")
        #expect(abs(bed - -26) < 0.3, "bed at \(bed) LUFS in \(channels) channel(s)")
    }

    @Test func aSoundsDCOffsetIsRemovedWhenItIsLoaded() throws {
        // A tone riding on a DC offset of 0.1 in one channel and −0.05 in the other.
        let frames = 8000
        var samples: [Float] = []
        for i in 0..<frames {
            let tone = Float(0.3 * sin(2 * Double.pi * 440 * Double(i) / 8000))
            samples += [tone + 0.1, tone - 0.05]
        }
        let clean = AudioAsset(channels: 2, samples: samples).withoutDCOffset()
        for c in 0..<2 {
            let channel = stride(from: c, to: clean.samples.count, by: 2).map { Double(clean.samples[$0]) }
            let mean = channel.reduce(0, +) / Double(frames)
            #expect(abs(mean) < 1e-6, "channel \(c) keeps a mean of \(mean)")
            // The tone itself is untouched: 440 Hz over whole cycles has no mean of its own.
            let tone = (0..<frames).map { 0.3 * sin(2 * Double.pi * 440 * Double($0) / 8000) }
            let worst = zip(channel, tone).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-4, "channel \(c) strays \(worst) from the tone")
        }
    }
}
