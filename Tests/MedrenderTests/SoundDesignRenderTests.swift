import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

@Suite struct SoundDesignRenderTests {
    /// The times of the swells of `samples` (mono): peaks of the 0.5-s RMS envelope that are the
    /// loudest within 4 s either side.
    static func swellPeaks(_ samples: [Float], rate: Int) -> [Double] {
        var cumulative = [Double](repeating: 0, count: samples.count + 1)
        for (i, x) in samples.enumerated() { cumulative[i + 1] = cumulative[i] + Double(x) * Double(x) }
        let window = rate / 2, hop = rate / 10
        var envelope: [Double] = []
        var start = 0
        while start + window <= samples.count {
            envelope.append(((cumulative[start + window] - cumulative[start]) / Double(window)).squareRoot())
            start += hop
        }
        let smooth = envelope.indices.map { i in
            let r = max(0, i - 4)...min(envelope.count - 1, i + 4)
            return r.reduce(0.0) { $0 + envelope[$1] } / Double(r.count)
        }
        return smooth.indices.filter { i in
            i > 0 && i < smooth.count - 1 && smooth[i] == smooth[max(0, i - 40)...min(smooth.count - 1, i + 40)].max()!
        }.map { (Double($0 * hop) + Double(window) / 2) / Double(rate) }
    }

    @Test func theOceanKeepsItsSwellRhythmAcrossItsLoop() throws {
        // ocean.ogg loops at its own length (CREDITS.yaml: loop: natural); a baked 3-s seam would
        // cut 3 s out of a swell, so every 31 s one swell would come after about 5.7 s.
        let dir = TemporaryDirectory("ocean")
        let yaml = """
            pattern: 4-0-4-0
            settle: 2
            closing: 3
            ambience: { beds: [ { sound: ocean, level: -26 } ], fade-in: 0, fade-out: 0 }
            master: { fade-in: 0, fade-out: 0 }
            """
        let req = try request(yaml, minutes: 1.75, rate: 8000, layers: [.ambience], format: .wav(.float32), output: dir.file("sea.wav"), dir: dir)
        _ = try Renderer.render(req)
        let plan = try Renderer.check(req)
        #expect(plan.beds.map(\.seamFrames) == [0])
        let (rate, channels, samples) = try readSound(dir.file("sea.wav"))
        let mono = stride(from: 0, to: samples.count, by: channels).map { samples[$0] + samples[$0 + 1] }
        let peaks = Self.swellPeaks(mono, rate: rate)
        let intervals = zip(peaks.dropFirst(), peaks).map { $0 - $1 }
        #expect(intervals.count >= 10)
        #expect(intervals.allSatisfy { $0 > 7 && $0 < 10 }, "swell intervals \(intervals)")
        // The same measure finds the short swell in the recording looped with a baked seam.
        let raw = try SoundFileReader(path: "\(PackagePaths.root)/Sounds/ocean.ogg").readAll()
        let seamed = LoopedBed.bake(raw, seamFrames: 3 * 48000)
        let seamedMono = (0..<(seamed.frameCount * 3)).map { f -> Float in
            let k = f % seamed.frameCount
            return seamed.samples[k * 2] + seamed.samples[k * 2 + 1]
        }
        let seamedPeaks = Self.swellPeaks(seamedMono, rate: 48000)
        #expect(zip(seamedPeaks.dropFirst(), seamedPeaks).contains { $0 - $1 < 6.5 })
    }

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
            format: .wav(.float32), destination: .file(dir.file("mix.wav")), library: PresetLibrary(root: PackagePaths.root))
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
            options: RenderOptions(rate: rate, length: .cycles(3)), format: .wav(.float32), destination: .file(dir.file("m.wav")),
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
