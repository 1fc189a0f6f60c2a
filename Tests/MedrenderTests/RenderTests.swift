import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Synchronization
import Testing

let library = PresetLibrary(root: PackagePaths.root)

/// A request for `yaml` rendered to `output`.
func request(_ yaml: String, minutes: Double, rate: Int = 48000, layers: Set<Layer> = Set(Layer.allCases),
             format: OutputFormat, output: String, dir: TemporaryDirectory) throws -> RenderRequest {
    let file = dir.write("preset.yaml", yaml)
    let session = try PresetDecoder.load(path: file)
    return RenderRequest(
        session: session, presetFile: file,
        options: RenderOptions(rate: rate, length: .duration(SessionTime(minutes: minutes)!), layers: layers),
        format: format, destination: .file(output), library: library)
}

let fractional = """
    pattern: 4.7-0.3-6.3-1.1
    settle: 3.333
    closing: 5
    cues:
      inhale: { tone: bell, pitch: 660 }
      hold: { tone: pure, pitch: 500, length: 0.2 }
      exhale: { tone: bowl, pitch: 330, pan: -0.5 }
      hold-out: { tone: tick, pitch: 900, pan: 1 }
    master: { fade-out: 2 }
    """

@Suite struct RenderTests {
    @Test(arguments: [8000, 22050, 44100, 48000, 96000])
    func cueOnlyRenderPutsEveryCueOnItsFrame(rate: Int) throws {
        let dir = TemporaryDirectory("cues")
        let out = dir.file("cues.wav")
        let req = try request(fractional, minutes: 1, rate: rate, layers: [.cues], format: .wav(.float32), output: out, dir: dir)
        let report = try Renderer.render(req)
        let (fileRate, channels, samples) = try readSound(out)
        #expect(fileRate == rate)
        #expect(channels == 2)
        #expect(samples.count / 2 == 60 * rate)
        #expect(report.frames == Int64(60 * rate))

        let plan = try Renderer.schedulePlan(req)
        let marks = Array(plan.cueMarks)
        #expect(marks.count > 12)
        for mark in marks {
            let f = Int(mark.frame)
            #expect(samples[(f - 1) * 2] == 0 && samples[(f - 1) * 2 + 1] == 0, "silent before the cue at frame \(f)")
            #expect(samples[f * 2] != 0 || samples[f * 2 + 1] != 0, "sounding on the cue's frame \(f)")
        }
        // The cue sheet gives the same frames as the audio.
        let json = try JSONSerialization.jsonObject(with: Data(CueSheetWriter.json(plan).utf8)) as! [String: Any]
        let sheet = (json["cues"] as! [[String: Any]]).map { ($0["frame"] as! NSNumber).int64Value }
        #expect(sheet == marks.map(\.frame))
        #expect((json["frames"] as! NSNumber).int64Value == Int64(60 * rate))
        #expect((json["rate"] as! NSNumber).intValue == rate)
    }

    @Test(arguments: [OutputFormat.ogg(quality: 4), .wav(.int16), .wav(.int24), .flac(.int16)])
    func fullSessionHasExactLengthAndSameBytesTwice(format: OutputFormat) throws {
        let dir = TemporaryDirectory("full")
        let ext = format.fileExtension
        let yaml = try String(contentsOfFile: PackagePaths.root + "/Presets/box-breath.yaml", encoding: .utf8)
        let a = dir.file("a.\(ext)"), b = dir.file("b.\(ext)")
        _ = try Renderer.render(try request(yaml, minutes: 1.5, rate: 44100, format: format, output: a, dir: dir))
        // The second time on one thread, its OGG still in pieces: the same bytes.
        var single = try request(yaml, minutes: 1.5, rate: 44100, format: format, output: b, dir: dir)
        single.threads = 1
        single.oggInPieces = true
        let passes = Mutex(Set<Int>())
        _ = try Renderer.render(single) { p in passes.withLock { _ = $0.insert(p.pass) } }
        // An OGG file is decoded as it is written, within pass 2.
        #expect(passes.withLock { $0 } == [1, 2])
        let (rate, channels, samples) = try readSound(a)
        #expect(rate == 44100)
        #expect(channels == 2)
        #expect(samples.count / 2 == 90 * 44100)
        let same = FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b)
        #expect(same, "one thread and two wrote other bytes")
        #expect(dir.contents() == ["a.\(ext)", "b.\(ext)", "preset.yaml"])
    }

    @Test func loudnessLandsOnTargetAndPeaksUnderCeiling() throws {
        let dir = TemporaryDirectory("loud")
        let yaml = try String(contentsOfFile: PackagePaths.root + "/Presets/box-breath.yaml", encoding: .utf8)
        let out = dir.file("a.wav")
        let report = try Renderer.render(try request(yaml, minutes: 2, format: .wav(.float32), output: out, dir: dir))
        // Measured independently of the render: libebur128 over the file read back, ±0.5 LU.
        let (rate, channels, samples) = try readSound(out)
        let meter = try LoudnessMeter(channels: channels, rate: rate, withTruePeak: true)
        try samples.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frameCount: samples.count / channels) }
        // Levelled on its recorded prompts: the voice on target, the file as the report says.
        #expect(abs(try meter.integratedLoudness() - (report.loudnessLUFS ?? 0)) < 0.2)
        #expect(20 * log10(try meter.truePeak()) <= -1 + 0.1)
        #expect(abs((report.speechLoudnessLUFS ?? 0) - (-18)) < 0.5)
    }

    @Test func missingSoundNamesPresetSoundAndWhatSoundsOffers() throws {
        let dir = TemporaryDirectory("missing")
        let out = dir.file("out.ogg")
        let existing = Data("keep me".utf8)
        FileManager.default.createFile(atPath: out, contents: existing)
        let req = try request("pattern: 4-4-4-4\nambience: [rian]\n", minutes: 2, format: .ogg(quality: 4), output: out, dir: dir)
        #expect {
            try Renderer.render(req)
        } throws: { error in
            let text = "\(error)"
            return (error as? any DiagnosedError)?.category == .missingInput && text.contains("'rian'") && text.contains("preset.yaml")
                && text.contains("did you mean 'rain'") && text.contains("ocean")
        }
        #expect(FileManager.default.contents(atPath: out) == existing)
        #expect(dir.contents() == ["out.ogg", "preset.yaml"])
    }

    @Test func soundThatIsTheOutputIsRefused() throws {
        let dir = TemporaryDirectory("self")
        let out = dir.file("bed.wav")
        // A real bed at the output's path: the render must not read what it is about to replace.
        let file = try AtomicOutputFile(path: out)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .int16, channels: 1, rate: 8000)
        let silence = [Int16](repeating: 100, count: 8000)
        try silence.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 8000) }
        try writer.finish()
        try file.commit()
        let req = try request("pattern: 4-4-4-4\nambience: [bed.wav]\n", minutes: 1, format: .wav(.int16), output: out, dir: dir)
        #expect(throws: RenderError.self) { try Renderer.render(req) }
    }
}

@Suite struct SoundCacheTests {
    @Test func rendersShareDecodedSoundsAndGiveTheSameBytes() throws {
        let dir = TemporaryDirectory("cache")
        let yaml = try String(contentsOfFile: PackagePaths.root + "/Presets/box-breath.yaml", encoding: .utf8)
        let cache = SoundCache()
        var outputs: [Data?] = []
        for (name, cached) in [("a.wav", true), ("b.wav", true), ("c.wav", false)] {
            var req = try request(yaml, minutes: 1.5, rate: 22050, format: .wav(.int16), output: dir.file(name), dir: dir)
            if cached { req.soundCache = cache }
            _ = try Renderer.render(req)
            outputs.append(FileManager.default.contents(atPath: dir.file(name)))
        }
        // bell, voice-intro and voice-outro (the rain is generated), each decoded once for both cached renders.
        #expect(cache.count == 3)
        #expect(cache.decodeCount == 3)
        #expect(outputs[0] != nil && outputs[0] == outputs[1] && outputs[1] == outputs[2])
    }

    /// A plan alone (`Renderer.check`: what a preview page, a cue sheet or a validation takes,
    /// with no sample kept or voice's peaks held) is the plan a render makes of the same sounds:
    /// a voice read from files, and a teacher's take cut into lines. With a shared cache, the
    /// render after it decodes nothing again.
    @Test(arguments: ["box-breath", "teacher-take"])
    func aPlanAloneIsTheRendersPlan(preset: String) throws {
        let dir = TemporaryDirectory("planalone-\(preset)")
        let yaml = try String(contentsOfFile: PackagePaths.root + "/Presets/\(preset).yaml", encoding: .utf8)
        var req = try request(yaml, minutes: 2, rate: 22050, format: .wav(.int16), output: dir.file("out.wav"), dir: dir)
        let cache = SoundCache()
        req.soundCache = cache
        let plan = try Renderer.check(req)
        let decoded = cache.decodeCount
        #expect(decoded >= 3)
        let prepared = try Renderer.prepare(req)
        let made = prepared.plan
        #expect(made.totalFrames == plan.totalFrames && made.schedule == plan.schedule && made.master == plan.master)
        #expect(made.soundFrameCounts == plan.soundFrameCounts && made.guide == plan.guide && made.notes == plan.notes)
        #expect(made.ducking == plan.ducking && made.bellDucking == plan.bellDucking && made.sections == plan.sections)
        #expect(!prepared.assets.played.isEmpty)
        #expect(cache.decodeCount == decoded)
    }

    /// Known by their bytes' SHA-256 (as a build knows them), two files of the same bytes are one
    /// sound: decoded once, and the renders using either give the same bytes.
    @Test func filesOfTheSameBytesAreDecodedOnce() throws {
        let dir = TemporaryDirectory("cachehash")
        let rain = PackagePaths.root + "/Sounds/rain.ogg"
        try FileManager.default.copyItem(atPath: rain, toPath: dir.file("a.ogg"))
        try FileManager.default.copyItem(atPath: rain, toPath: dir.file("b.ogg"))
        let cache = SoundCache()
        // The build hashes the bytes; here both files are simply known to hold the same ones.
        cache.know(hashes: [dir.file("a.ogg"): "rain.ogg's bytes", dir.file("b.ogg"): "rain.ogg's bytes"])
        var outputs: [[Float]] = []
        for name in ["a", "b"] {
            var req = try request("pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [\(name).ogg]\n", minutes: 0.5, rate: 16000,
                                  format: .wav(.int16), output: dir.file("\(name).wav"), dir: dir)
            req.soundCache = cache
            _ = try Renderer.render(req)
            outputs.append(try readSound(dir.file("\(name).wav")).samples)
        }
        #expect(cache.decodeCount == 1)
        // The same audio (the tags differ: each credits its own file name).
        #expect(outputs[0].count == 30 * 16000 * 2 && outputs[0] == outputs[1])

        // Without the hashes, each path is its own sound.
        let byPath = SoundCache()
        for name in ["a", "b"] {
            var req = try request("pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [\(name).ogg]\n", minutes: 0.5, rate: 16000,
                                  format: .wav(.int16), output: dir.file("\(name)2.wav"), dir: dir)
            req.soundCache = byPath
            _ = try Renderer.render(req)
        }
        #expect(byPath.decodeCount == 2)
    }

    /// A render loads its sounds side by side, and renders side by side share a cache: a sound
    /// asked for while another thread decodes it waits for that decode instead of repeating it.
    @Test func soundsLoadedSideBySideAreDecodedOnce() throws {
        let dir = TemporaryDirectory("cacheside")
        let rain = PackagePaths.root + "/Sounds/rain.ogg"
        try FileManager.default.copyItem(atPath: rain, toPath: dir.file("a.ogg"))
        try FileManager.default.copyItem(atPath: rain, toPath: dir.file("b.ogg"))
        let yaml = "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [a.ogg, b.ogg]\n"
        let cache = SoundCache()
        cache.know(hashes: [dir.file("a.ogg"): "rain.ogg's bytes", dir.file("b.ogg"): "rain.ogg's bytes"])
        var outputs: [[Float]] = []
        for (name, threads) in [("two", 2), ("one", 1)] {
            var req = try request(yaml, minutes: 0.5, rate: 16000, format: .wav(.int16), output: dir.file("\(name).wav"), dir: dir)
            req.soundCache = cache
            req.threads = threads
            _ = try Renderer.render(req)
            outputs.append(try readSound(dir.file("\(name).wav")).samples)
        }
        #expect(cache.decodeCount == 1)
        #expect(!outputs[0].isEmpty && outputs[0] == outputs[1])

        // Four renders at once on one cache: box-breath's three sounds, each decoded once.
        let shared = SoundCache()
        let box = try String(contentsOfFile: PackagePaths.root + "/Presets/box-breath.yaml", encoding: .utf8)
        let failures = Mutex(0)
        let requests = try (0..<4).map { k in
            var req = try request(box, minutes: 1, rate: 22050, format: .wav(.int16), output: dir.file("box\(k).wav"), dir: dir)
            req.soundCache = shared
            return req
        }
        DispatchQueue.concurrentPerform(iterations: 4) { k in
            do { _ = try Renderer.render(requests[k]) } catch { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(shared.decodeCount == 3)
        let first = FileManager.default.contents(atPath: dir.file("box0.wav"))
        for k in 1..<4 { #expect(first != nil && FileManager.default.contents(atPath: dir.file("box\(k).wav")) == first) }
    }

    /// Of several sounds that fail to load side by side, the first the session names gives the
    /// error, whichever thread failed first; a sound that failed is tried again next time.
    @Test func theFirstBadSoundInTheSessionGivesTheError() throws {
        let dir = TemporaryDirectory("cachebad")
        _ = dir.write("first.ogg", "not audio at all")
        _ = dir.write("second.ogg", String(repeating: "still not audio ", count: 4096))
        let cache = SoundCache()
        for _ in 0..<3 {
            var req = try request("pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [first.ogg, second.ogg]\n", minutes: 0.5,
                                  rate: 16000, format: .wav(.int16), output: dir.file("out.wav"), dir: dir)
            req.soundCache = cache
            #expect {
                try Renderer.render(req)
            } throws: { error in
                "\(error)".contains("first.ogg") && !"\(error)".contains("second.ogg")
            }
        }
        #expect(cache.decodeCount == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }
}
