import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The stems go through the mix's own master chain: the mix's gain, and the gain its limiter
/// applied at each frame. So they add up to the mix, and at these targets none clips (a stem can
/// peak over the mix only where layers cancel in it: at −12 LUFS this voice's stem reaches 1.10).
@Suite struct StemTests {
    /// A voice clip made to need the limiter: syllables of a full-scale tone, 60 ms every 400 ms
    /// (a crest factor above speech's), so that at a loud target its peaks go over the ceiling.
    static func writeLoudVoice(_ path: String, rate: Int) throws {
        let frames = rate * 4
        var samples = [Float](repeating: 0, count: frames)
        let syllable = rate * 60 / 1000, period = rate * 400 / 1000
        for i in 0..<frames where i % period < syllable {
            let k = Double(i % period) / Double(syllable)
            samples[i] = 0.99 * Float(sin(Double.pi * k) * sin(2 * Double.pi * 220 * Double(i) / Double(rate)))
        }
        let file = try AtomicOutputFile(path: path)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: 1, rate: rate, tags: [])
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: frames) }
        try writer.finish()
        try file.commit()
    }

    static let yaml = """
        name: stems
        description: a loud voice over cues, rain and bells
        pattern: 4-4-4-4
        settle: 6
        closing: 8
        cues:
          inhale: { tone: bell, pitch: 660, gain: -6 }
          exhale: { tone: bowl, pitch: 330, gain: -6 }
        voice:
          clips:
            - { sound: loud.wav, at: 1 }
            - { sound: loud.wav, at: 30 }
        ambience:
          beds:
            - { sound: rain, level: -20 }
          fade-in: 2
          fade-out: 3
        bells:
          start: bell
        """

    @Test(arguments: [-13.0, -14.0])
    func stemsSumToTheMixAndNoneClips(loudness: Double) throws {
        let dir = TemporaryDirectory("stems\(Int(-loudness))")
        let rate = 22050
        try Self.writeLoudVoice(dir.file("loud.wav"), rate: rate)
        let yaml = Self.yaml + "\nmaster: { loudness: \(loudness), true-peak: -1 }\n"
        let out = dir.file("mix.wav")
        var req = try request(yaml, minutes: 1, rate: rate, format: .wav(.float32), output: out, dir: dir)
        req.stemsDirectory = dir.file("stems")
        try FileManager.default.createDirectory(atPath: dir.file("stems"), withIntermediateDirectories: true)
        let report = try Renderer.render(req)
        #expect(report.limiterReductionDecibels > (loudness > -13.5 ? 0.5 : 0), "the voice should make the limiter work (\(report.limiterReductionDecibels) dB)")
        #expect(report.stems.count == 4)

        let mix = try readSound(out).samples
        var sum = [Float](repeating: 0, count: mix.count)
        for stem in report.stems {
            let samples = try readSound(stem).samples
            #expect(samples.count == mix.count, "\(stem): \(samples.count) samples, the mix has \(mix.count)")
            let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
            #expect(peak < 1, "\(stem) peaks at \(20 * log10(peak)) dBFS: it clips")
            for i in 0..<min(sum.count, samples.count) { sum[i] += samples[i] }
        }
        var worst: Float = 0
        for i in 0..<mix.count { worst = max(worst, abs(sum[i] - mix[i])) }
        // Float rounding of four layers summed in another order (and the mixer's sum of them):
        // far under a 24-bit step (6e-8 × 2).
        #expect(worst < 1e-5, "the stems add up to within \(worst) of the mix")
    }

    @Test func sixteenBitStemsSumWithinDither() throws {
        let dir = TemporaryDirectory("stems16")
        let rate = 16000
        try Self.writeLoudVoice(dir.file("loud.wav"), rate: rate)
        let out = dir.file("mix.wav")
        var req = try request(Self.yaml + "\nmaster: { loudness: -14 }\n", minutes: 1, rate: rate, format: .wav(.int16), output: out, dir: dir)
        req.stemsDirectory = dir.file("stems")
        try FileManager.default.createDirectory(atPath: dir.file("stems"), withIntermediateDirectories: true)
        let report = try Renderer.render(req)
        let mix = try readSound(out).samples
        var sum = [Float](repeating: 0, count: mix.count)
        for stem in report.stems {
            let samples = try readSound(stem).samples
            for i in 0..<min(sum.count, samples.count) { sum[i] += samples[i] }
            #expect(!samples.contains { abs($0) >= 32767.0 / 32768 }, "\(stem) reaches full scale")
        }
        // Each of the five files carries its own TPDF dither (±1 LSB) and rounding (±½ LSB).
        let lsb: Float = 1.0 / 32768
        var worst: Float = 0
        for i in 0..<mix.count { worst = max(worst, abs(sum[i] - mix[i])) }
        #expect(worst <= 7.5 * lsb, "the 16-bit stems add up to within \(worst / lsb) LSB of the mix")
    }
}
