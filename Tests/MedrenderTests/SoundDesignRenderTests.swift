import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

@Suite struct SoundDesignRenderTests {
    @Test(arguments: ["rain", "ocean"])
    func shippedBedLoopsWithoutALevelStepOrAJumpAtItsSeam(name: String) throws {
        let reader = try SoundFileReader(path: "\(PackagePaths.root)/Sounds/\(name).ogg")
        let raw = try reader.readAll()
        let rate = reader.rate
        let seam = 3 * rate
        let loop = LoopedBed.bake(raw, seamFrames: seam)
        let c = loop.channels
        #expect(loop.frameCount == raw.frameCount - seam)
        func rms(_ from: Int, _ to: Int) -> Double {
            var sum = 0.0
            for i in (from * c)..<(to * c) { sum += Double(loop.samples[i]) * Double(loop.samples[i]) }
            return 10 * log10(sum / Double((to - from) * c))
        }
        // The seam (the loop's first 3 s) against what the two blended stretches of the recording
        // carry, weighted by the equal-power fades: within 0.5 dB RMS, so the blend neither dips
        // nor bumps (a swelling sea changes level on its own; the seam must not add to that).
        var expected = 0.0
        for i in 0..<seam {
            let x = (Double(i) + 0.5) / Double(seam)
            let fadeIn = sin(x * .pi / 2), fadeOut = cos(x * .pi / 2)
            for ch in 0..<c {
                let head = Double(raw.samples[i * c + ch]), tail = Double(raw.samples[(loop.frameCount + i) * c + ch])
                expected += head * head * fadeIn * fadeIn + tail * tail * fadeOut * fadeOut
            }
        }
        let expectedLevel = 10 * log10(expected / Double(seam * c))
        let seamLevel = rms(0, seam)
        #expect(abs(seamLevel - expectedLevel) < 0.5, "seam \(seamLevel) dB, expected \(expectedLevel) dB")
        // And in one-second windows across the seam, against the same windows of the recording.
        let restLevel = rms(seam, loop.frameCount)
        if name == "rain" { #expect(abs(seamLevel - restLevel) < 0.5, "rain is steady: seam \(seamLevel) dB, rest \(restLevel) dB") }
        // The wrap from the last frame to the first is no larger a step than the material's own.
        var largestStep: Float = 0
        for f in 1..<raw.frameCount {
            for ch in 0..<c { largestStep = max(largestStep, abs(raw.samples[f * c + ch] - raw.samples[(f - 1) * c + ch])) }
        }
        for ch in 0..<c {
            #expect(abs(loop.samples[ch] - loop.samples[(loop.frameCount - 1) * c + ch]) <= largestStep)
        }
    }

    @Test func stemsAreAlignedToTheMixAndAddUpToIt() throws {
        let dir = TemporaryDirectory("stems")
        try FileManager.default.createDirectory(atPath: dir.file("stems"), withIntermediateDirectories: true)
        let yaml = try String(contentsOfFile: PackagePaths.root + "/Presets/box-breath.yaml", encoding: .utf8)
            + "\nvoice:\n  intro: voice-intro\n  outro: voice-outro\n  prompts: { inhale: voice-breathe-in, exhale: voice-breathe-out }\n"
        let yamlFixed = yaml.replacingOccurrences(of: "voice:\n  intro: voice-intro\n  outro: voice-outro\nambience", with: "ambience")
        let file = dir.write("box.yaml", yamlFixed)
        let session = try PresetDecoder.load(path: file)
        var request = RenderRequest(
            session: quiet(session), presetFile: file, options: RenderOptions(rate: 22050, length: .duration(.seconds(100))),
            format: .wav(.float32), outputPath: dir.file("mix.wav"), library: PresetLibrary(root: PackagePaths.root))
        request.stemsDirectory = dir.file("stems")
        let report = try Renderer.render(request)
        #expect(report.stems.map { URL(fileURLWithPath: $0).lastPathComponent }
                == ["mix-cues.wav", "mix-voice.wav", "mix-ambience.wav", "mix-bells.wav"])
        let mix = try readSound(dir.file("mix.wav")).samples
        var sum = [Float](repeating: 0, count: mix.count)
        for stem in report.stems {
            let samples = try readSound(stem).samples
            #expect(samples.count == mix.count, "\(stem) has the mix's length")
            #expect(samples.contains { $0 != 0 }, "\(stem) is not silent")
            for i in 0..<min(samples.count, sum.count) { sum[i] += samples[i] }
        }
        // A quiet target leaves the limiter nothing to do, so the stems add up to the mix exactly,
        // to float rounding (1e-5).
        #expect(report.limiterReductionDecibels == 0)
        var worst: Float = 0
        for i in 0..<mix.count { worst = max(worst, abs(sum[i] - mix[i])) }
        #expect(worst < 1e-5, "stems differ from the mix by \(worst)")
    }

    func quiet(_ session: Session) -> Session {
        var s = session
        s.master.loudnessLUFS = -35
        return s
    }
}

@Suite struct LoudnessGateAgreementTests {
    @Test(arguments: [("box-breath", 48000), ("sleep", 22050), ("coherent", 44100)])
    func passOneMeterAgreesWithLibebur128(preset: String, rate: Int) throws {
        let dir = TemporaryDirectory("gate")
        let file = PackagePaths.root + "/Presets/\(preset).yaml"
        let request = RenderRequest(
            session: try PresetDecoder.load(path: file), presetFile: file,
            options: RenderOptions(rate: rate, length: .cycles(3)), format: .wav(.float32), outputPath: dir.file("m.wav"),
            library: PresetLibrary(root: PackagePaths.root))
        _ = try Renderer.render(request)
        let (_, channels, samples) = try readSound(dir.file("m.wav"))
        let reference = try LoudnessMeter(channels: channels, rate: rate)
        let gate = LoudnessGate(channels: channels, rate: rate)
        try samples.withUnsafeBufferPointer { p in
            try reference.add(p.baseAddress!, frameCount: samples.count / channels)
            gate.add(p.baseAddress!, frameCount: samples.count / channels)
        }
        // libebur128 runs in histogram mode (0.1 LU bins): agreement within 0.1 LU.
        #expect(abs(gate.integratedLoudness - (try reference.integratedLoudness())) < 0.1)
    }
}
