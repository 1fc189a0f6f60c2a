import Foundation
@testable import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// A render mixes the session as many times as the README says and no more: pass 1 and pass 2,
/// plus a limited pass only where the measured peaks need one (an output written once), or a
/// lossy file written again while it decodes over the ceiling or off the target; stems follow the
/// mix's limiter beside pass 2 and add no mix. Read from the mixers' own tally (`MixTally`): the
/// frames of the whole mix they mixed, over the session's, and the passes that mixed them.
@Suite struct MixCountTests {
    struct Counted {
        var passes: [String]
        /// The frames of the whole mix mixed, over the session's.
        var mixes: Double
        /// The frames of layers mixed apart (stems, the voice measured alone), over the session's.
        var layers: Double
        var stems: Int
        var report: RenderReport
    }

    static func render(_ preset: String, format: OutputFormat, ext: String, stems: Bool = false, loudness: Double? = nil,
                       rate: Int = 8000, measured: LoudnessCache? = nil, dir: TemporaryDirectory) throws -> Counted {
        let file = try library.presetPath(preset)
        var session = try PresetDecoder.load(path: file)
        if let loudness { session.master.loudnessLUFS = loudness }
        var request = RenderRequest(
            session: session, presetFile: file,
            options: RenderOptions(rate: rate, channels: 2, length: .duration(.seconds(60))),
            format: format, destination: .file(dir.file("\(preset).\(ext)")), library: library)
        request.loudnessCache = measured
        if stems {
            request.stemsDirectory = dir.file("stems")
            try FileManager.default.createDirectory(atPath: dir.file("stems"), withIntermediateDirectories: true)
        }
        let job = try request.job()
        let prepared = try job.prepare()
        let report = try job.run(prepared, to: request.destination)
        let tally = prepared.assets.tally, total = Double(prepared.plan.totalFrames)
        return Counted(passes: tally.passes, mixes: Double(tally.mixFrames) / total, layers: Double(tally.layerFrames) / total,
                       stems: report.stems.count, report: report)
    }

    /// The frames mixed are the passes named: each pass mixes the session once (a limited pass's
    /// parts but the first start 1 s before their cut, 5 % of this minute, and a chain mixes whole blocks
    /// past the end).
    static func expectMixesMatch(_ counted: Counted, _ what: String) {
        let limited = Double(counted.passes.filter { $0 == "limited" }.count)
        #expect(counted.mixes >= Double(counted.passes.count) && counted.mixes < Double(counted.passes.count) + 0.05 + 0.1 * limited,
                "\(what): \(counted.mixes) mixes for the passes \(counted.passes)")
    }

    /// A WAV or a FLAC is measured once and written once, stems or not; each stem is its layer
    /// mixed once beside the write, as the voice measured alone in each pass of a voiced session.
    @Test(arguments: [("wav", OutputFormat.wav(.int16)), ("flac", .flac(.int16))])
    func anOutputWrittenOnceMixesTwice(ext: String, format: OutputFormat) throws {
        let dir = TemporaryDirectory("mix-count-\(ext)")
        let plain = try Self.render("box-breath", format: format, ext: ext, dir: dir)
        #expect(plain.passes == ["measure", "write"])
        Self.expectMixesMatch(plain, ext)
        let stemmed = try Self.render("box-breath", format: format, ext: ext, stems: true, dir: dir)
        #expect(stemmed.passes == ["measure", "write"], "stems add no pass: \(stemmed.passes)")
        Self.expectMixesMatch(stemmed, "\(ext) with stems")
        #expect(stemmed.stems >= 4)
        // The voice alone in pass 1 and in pass 2 (box-breath speaks its prompts), and each stem once.
        let apart = stemmed.layers - plain.layers
        #expect(plain.layers >= 2 && plain.layers < 2.15, "\(plain.layers)")
        #expect(apart >= Double(stemmed.stems) && apart < Double(stemmed.stems) + 0.15, "\(stemmed.stems) stems mixed \(apart) times")
    }

    /// A lossy file is written until it decodes on target under the ceiling: no limited pass,
    /// and stems written beside each write, adding no mix. Before it, a session levelled on its
    /// voice (box-breath speaks its prompts) has its voice measured alone, which sets its gain, and
    /// is mixed only to be written; one without a voice (focus-beats) is measured whole first.
    @Test(arguments: [("ogg", OutputFormat.ogg(quality: 5)), ("mp3", .mp3(quality: 2)), ("opus", .opus(quality: 6))])
    func aLossyFileMixesOnceAWrite(ext: String, format: OutputFormat) throws {
        let dir = TemporaryDirectory("mix-count-\(ext)")
        let voiced = try Self.render("box-breath", format: format, ext: ext, stems: true, rate: 48000, dir: dir)
        let writes = voiced.passes.count
        #expect(voiced.passes.allSatisfy { $0 == "write" } && writes >= 1 && writes <= DecodedCheck.maximumRetries + 2, "\(voiced.passes)")
        Self.expectMixesMatch(voiced, ext)
        // Apart from the mix: the voice in pass 1, and beside each write the voice measured and each stem.
        let apart = Double(1 + writes * (1 + voiced.stems))
        #expect(voiced.stems >= 4 && voiced.layers >= apart && voiced.layers < apart + 0.05 * Double(writes), "\(voiced.layers) for \(writes) writes")
        let plain = try Self.render("focus-beats", format: format, ext: ext, rate: 48000, dir: dir)
        #expect(plain.passes.first == "measure" && plain.passes.dropFirst().allSatisfy { $0 == "write" } && plain.passes.count >= 2,
                "\(plain.passes)")
        #expect(plain.passes.count <= 2 + DecodedCheck.maximumRetries + 1)
        Self.expectMixesMatch(plain, "\(ext) without a voice")
        #expect(plain.layers == 0, "\(plain.layers)")
    }

    /// Pass 1 of the voice alone sets the gain a whole pass 1 sets (the same bytes), and the
    /// report's loudness of the mix before the gain, the output's less the gain, is what a WAV of
    /// the same mix measures as written, less the same gain. A shared cache gives the voice's measure to a lossy file only: a
    /// WAV after it measures the whole mix, whose peak its limited pass needs, and an OGG after
    /// that takes the whole measure.
    @Test func theVoiceAloneSetsTheGainTheWholeMixWould() throws {
        let dir = TemporaryDirectory("mix-count-voice")
        let measured = LoudnessCache()
        let alone = try Self.render("box-breath", format: .ogg(quality: 5), ext: "ogg", rate: 48000, measured: measured, dir: dir)
        #expect(!alone.passes.contains("measure"), "\(alone.passes)")
        let first = FileManager.default.contents(atPath: dir.file("box-breath.ogg"))
        let wav = try Self.render("box-breath", format: .wav(.int16), ext: "wav", rate: 48000, measured: measured, dir: dir)
        #expect(wav.passes == ["measure", "write"], "\(wav.passes)")
        let whole = try Self.render("box-breath", format: .ogg(quality: 5), ext: "ogg", rate: 48000, measured: measured, dir: dir)
        #expect(!whole.passes.contains("measure"), "\(whole.passes)")
        #expect(first != nil && first == FileManager.default.contents(atPath: dir.file("box-breath.ogg")))
        #expect(alone.report.gainDecibels == whole.report.gainDecibels && alone.report.limiterReductionDecibels == 0)
        // The WAV's output, measured before quantizing, less the gain: the same meter over the same
        // samples. (Pass 1's own figure, of four parts whose gating blocks start at each cut, is
        // 0.09 LU from it in this minute, 0.001 in 15.)
        let mixLoudness = try #require(alone.report.measuredLoudnessLUFS), written = try #require(wav.report.loudnessLUFS)
        #expect(abs(mixLoudness - (written - wav.report.gainDecibels)) < 0.001, "\(mixLoudness) against \(written - wav.report.gainDecibels)")
        #expect(wav.report.measuredLoudnessLUFS != nil)
    }

    /// A WAV whose gain takes its peaks over the ceiling is measured through the limiter first:
    /// one limited pass more, no other.
    @Test func aLoudWAVAddsALimitedPass() throws {
        let dir = TemporaryDirectory("mix-count-loud")
        let counted = try Self.render("focus-beats", format: .wav(.int16), ext: "wav", loudness: -8, dir: dir)
        #expect(counted.passes.first == "measure" && counted.passes.last == "write" && counted.passes.dropFirst().dropLast().allSatisfy { $0 == "limited" },
                "\(counted.passes)")
        #expect(counted.passes.contains("limited"), "\(counted.passes)")
        Self.expectMixesMatch(counted, "loud wav")
    }

    /// Renders that share a loudness cache (a build's) measure a session once: the same session in
    /// a second format is written at once, with the first one's gain.
    @Test func aSecondFormatOfTheSameMixIsNotMeasuredAgain() throws {
        let dir = TemporaryDirectory("mix-count-shared")
        let measured = LoudnessCache()
        let first = try Self.render("box-breath", format: .wav(.int16), ext: "wav", measured: measured, dir: dir)
        #expect(first.passes == ["measure", "write"])
        let second = try Self.render("box-breath", format: .flac(.int16), ext: "flac", measured: measured, dir: dir)
        #expect(second.passes == ["write"], "\(second.passes)")
        Self.expectMixesMatch(second, "flac after the wav")
        // The same bytes as the FLAC measured on its own.
        let aloneDir = TemporaryDirectory("mix-count-alone")
        let alone = try Self.render("box-breath", format: .flac(.int16), ext: "flac", dir: aloneDir)
        #expect(alone.passes == ["measure", "write"])
        let shared = FileManager.default.contents(atPath: dir.file("box-breath.flac"))
        #expect(shared != nil && shared == FileManager.default.contents(atPath: aloneDir.file("box-breath.flac")))
    }
}
