import Foundation
@testable import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// A render in three stages: prepared once, written as many times as asked.
@Suite struct PreparedRenderTests {
    static func boxBreath(output: String) throws -> RenderRequest {
        let file = try library.presetPath("box-breath")
        return RenderRequest(session: try PresetDecoder.load(path: file), presetFile: file,
                             options: RenderOptions(rate: 8000, length: .duration(.seconds(60))),
                             format: .wav(.int16), destination: .file(output), library: library)
    }

    /// Preparing plans once and decodes each sound once; writing the prepared render, to a file
    /// with its stems and cue sheets and again to a sink, and reading its cue sheets and events,
    /// plans and decodes nothing again, and gives the bytes a render from scratch gives.
    @Test func aPreparedRenderPlansAndDecodesOnceWhateverItFeeds() throws {
        let dir = TemporaryDirectory("prepared")
        let cache = SoundCache()
        var request = try Self.boxBreath(output: dir.file("a.wav"))
        request.soundCache = cache
        request.stemsDirectory = dir.file("stems")
        request.cueSheetPaths = [dir.file("a.json"), dir.file("a.vtt")]
        try FileManager.default.createDirectory(atPath: dir.file("stems"), withIntermediateDirectories: true)
        let plans = PlanTally()
        let prepared = try RenderPlan.$tally.withValue(plans) { try Renderer.prepare(request) }
        #expect(plans.value == 1, "preparing planned \(plans.value) times")
        let sounds = prepared.plan.soundsUsed.count
        #expect(sounds == 3, "box-breath plays its bell and two voice clips (its rain is generated): \(prepared.plan.soundsUsed)")
        #expect(cache.decodeCount == sounds)
        let report = try RenderPlan.$tally.withValue(plans) {
            let report = try Renderer.render(prepared, to: .file(dir.file("a.wav")))
            _ = try Renderer.render(prepared, to: .file(dir.file("b.wav")))
            _ = try Renderer.render(prepared, to: .sink(RenderJobTests.Collector()))
            _ = CueSheetWriter.text(prepared.plan, format: .vtt) + CueSheetWriter.text(prepared.plan, format: .txt)
            _ = (prepared.plan.events, prepared.warnings, prepared.tags)
            return report
        }
        #expect(plans.value == 1, "the faces planned \(plans.value - 1) times more")
        #expect(report.stems.count == 4)
        #expect(FileManager.default.fileExists(atPath: dir.file("a.vtt")))
        #expect(cache.decodeCount == sounds, "writing decoded a sound again")

        var fresh = try Self.boxBreath(output: dir.file("fresh.wav"))
        fresh.threads = 1
        let freshPlans = PlanTally()
        _ = try RenderPlan.$tally.withValue(freshPlans) { try Renderer.render(fresh) }
        #expect(freshPlans.value == 1, "a render from its request planned \(freshPlans.value) times")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir.file("a.wav")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: dir.file("b.wav")))))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: dir.file("fresh.wav")))))
    }

    /// The fit is one stage: a render's sounds, its outline (what the server says before it
    /// renders), its plan and its writing all take the one fit its job made; a job changed after
    /// its fit is fitted again, not planned from the old one.
    @Test func aRenderFitsItsSessionOnce() throws {
        let dir = TemporaryDirectory("fit-once")
        let request = try Self.boxBreath(output: dir.file("f.wav"))
        let fits = PlanTally()
        try FittedSession.$tally.withValue(fits) {
            let job = try request.job()
            let outline = try job.outline()
            let prepared = try job.prepare()
            #expect(prepared.plan.total == outline.total)
            _ = try Renderer.render(prepared, to: .file(dir.file("f.wav")))
        }
        #expect(fits.value == 1, "a render fitted its session \(fits.value) times")
        var job = try request.job()
        #expect(try job.outline().total == .seconds(60))
        job.options.length = .duration(.seconds(90))
        #expect(try job.outline().total == .seconds(90))
        #expect(try job.prepare().plan.total == .seconds(90))
    }

    /// A bed is decoded straight into 16 bits (at its own rate) or rounded once resampled, and
    /// its loop baked so: within two steps of the loop baked from floats, never held in floats.
    @Test(arguments: [48000, 8000])
    func aBedIsLoadedAndBakedInSixteenBits(rate: Int) throws {
        let dir = TemporaryDirectory("prepared-bed")
        var request = try Self.boxBreath(output: dir.file("a.wav"))
        request.options.rate = rate
        // The stock presets' beds are generated: this one plays the rain loop.
        request.session.ambience = [AmbienceBed(sound: SoundRef("rain"), levelLUFS: -26)]
        let prepared = try Renderer.prepare(request)
        let bed = try #require(prepared.plan.beds.first { $0.generator == nil })
        let loop = try #require(prepared.assets.loops.first { $0.key.sound == bed.sound && $0.key.seamFrames == bed.seamFrames }?.value)
        #expect(loop.scale == Int16.heldStep)
        #expect(prepared.assets.beds.isEmpty, "the bed's sound is let go once its loop is baked")
        #expect(prepared.assets.sounds.isEmpty, "no sound is held in floats")
        // The same bed in floats: decoded, its offset out, resampled, baked.
        let path = try #require(request.job().sounds.sounds[bed.sound]).path
        let reader = try SoundFileReader(path: path)
        let decoded = try Resampler.resample(try reader.readAll().withoutDCOffset(), from: reader.rate, to: rate)
        let floats = LoopedBed.bake(decoded, seamFrames: Int(bed.seamFrames))
        #expect(floats.samples.count == loop.samples.count)
        var worst: Float = 0
        for (a, b) in zip(floats.samples, loop.samples) { worst = max(worst, abs(a - b.heldValue)) }
        #expect(worst <= 2 * Int16.heldStep, "the 16-bit loop is \(worst / Int16.heldStep) steps from the float one")
    }

    /// A prepared render refuses to write over a file it reads.
    @Test func aPreparedRenderDoesNotWriteOverItsPreset() throws {
        let dir = TemporaryDirectory("prepared-self")
        let request = try Self.boxBreath(output: dir.file("a.wav"))
        let prepared = try Renderer.prepare(request)
        #expect(throws: RenderError.self) { try Renderer.render(prepared, to: .file(request.presetFile)) }
    }
}

/// When a lossy file is written again, alone: what it went over and what it missed by.
@Suite struct LossyRetryPolicyTests {
    static func figures(loudness: Double, truePeak: Double) -> DecodedFigures {
        DecodedFigures(loudness: loudness, range: 3, truePeak: truePeak, samplePeak: 0.5)
    }

    static func policy(gain: Double = 6) -> LossyRetryPolicy {
        LossyRetryPolicy(ceilingDBTP: -1, targetLUFS: -16, gainDecibels: gain, headroomDecibels: 1)
    }

    @Test func onTargetAndUnderTheCeilingIsKept() {
        var policy = Self.policy()
        let retriedPolicy = policy.retry(after: Self.figures(loudness: -16.3, truePeak: -1.2))
        #expect(!retriedPolicy)
        #expect(policy.retries == 0)
        #expect(policy.limiterCeilingDecibels == -2)
    }

    @Test func overTheCeilingRaisesTheHeadroomByTheOvershootAndAMargin() {
        var policy = Self.policy()
        let retriedPolicy = policy.retry(after: Self.figures(loudness: -16, truePeak: -0.6))
        #expect(retriedPolicy)
        #expect(abs(policy.headroomDecibels - 1.7) < 1e-12)
        #expect(abs(policy.limiterCeilingDecibels - -2.7) < 1e-12)
        #expect(policy.correctionDecibels == 0)
    }

    @Test func offTargetCorrectsTheGainWithinItsCap() {
        var policy = Self.policy()
        let retriedPolicy = policy.retry(after: Self.figures(loudness: -16.8, truePeak: -3))
        #expect(retriedPolicy)
        #expect(abs(policy.correctionDecibels - 0.8) < 1e-12)
        var capped = Self.policy(gain: 59.5)
        let retriedCapped = capped.retry(after: Self.figures(loudness: -18, truePeak: -3))
        #expect(retriedCapped)
        #expect(abs(capped.correctionDecibels - 0.5) < 1e-12, "the gain stops at +60 dB")
    }

    @Test func theCeilingComesBeforeTheLoudness() {
        // Over and short at once: the headroom is raised, the gain is not.
        var policy = Self.policy()
        let retried1 = policy.retry(after: Self.figures(loudness: -17, truePeak: -0.5))
        #expect(retried1)
        #expect(policy.correctionDecibels == 0)
        #expect(abs(policy.headroomDecibels - 1.8) < 1e-12)
        // Under and short: raised, with writes left to check the raise.
        let retried2 = policy.retry(after: Self.figures(loudness: -17, truePeak: -2))
        #expect(retried2)
        #expect(abs(policy.correctionDecibels - 1) < 1e-12)
        // Over again: the headroom and the gain come down by what it went over and a margin.
        let retried3 = policy.retry(after: Self.figures(loudness: -16, truePeak: -0.8))
        #expect(retried3)
        #expect(abs(policy.correctionDecibels - 0.5) < 1e-12)
        #expect(abs(policy.headroomDecibels - 2.3) < 1e-12)
        // Three writes again, and under the ceiling: no more.
        let retried4 = policy.retry(after: Self.figures(loudness: -17, truePeak: -2))
        #expect(!retried4)
        #expect(policy.retries == 3)
        #expect(abs(policy.correctionDecibels - 0.5) < 1e-12)
    }

    @Test func aFileStillOverAfterThreeRewritesIsWrittenAsTheBestThatHeldTheCeiling() {
        var policy = Self.policy()
        let steps: [(loudness: Double, truePeak: Double)] = [(-17, -2), (-16.6, -1.5), (-16.5, -1.2)]
        var corrections: [Double] = []
        for step in steps {
            corrections.append(policy.correctionDecibels)
            let retried = policy.retry(after: Self.figures(loudness: step.loudness, truePeak: step.truePeak))
            #expect(retried)
        }
        #expect(policy.retries == 3)
        // The third raise went over, with no write left: back to the second raise's write (held
        // the ceiling, 0.5 LU short, the closest), once more, and no more after it.
        let restoredOnce = policy.retry(after: Self.figures(loudness: -16, truePeak: -0.7))
        #expect(restoredOnce && policy.restored)
        #expect(abs(policy.correctionDecibels - corrections[2]) < 1e-12 && policy.headroomDecibels == 1)
        let again = policy.retry(after: Self.figures(loudness: -16.5, truePeak: -1.2))
        #expect(!again)
        // Under the ceiling on the last write: kept, whatever it missed.
        var short = Self.policy()
        for step in steps { _ = short.retry(after: Self.figures(loudness: step.loudness, truePeak: step.truePeak)) }
        let kept = short.retry(after: Self.figures(loudness: -17, truePeak: -2))
        #expect(!kept && !short.restored)
    }

    @Test func anUnmeasurablyQuietFileIsNotCorrectedAndRetriesStopAtThree() {
        var quiet = Self.policy()
        let retriedQuiet = quiet.retry(after: Self.figures(loudness: -.infinity, truePeak: -.infinity))
        #expect(!retriedQuiet)
        var policy = Self.policy()
        var count = 0
        while policy.retry(after: Self.figures(loudness: -16, truePeak: 0)) { count += 1 }
        #expect(count == 3)
        #expect(policy.retries == 3)
    }
}
