import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// Every preset the library ships decodes, plans at its default length, and renders its shortest
/// session (settle + 2 cycles + closing) to the exact frame count without reaching full scale.
@Suite struct PresetLibraryTests {
    static let presetLibrary = PresetLibrary(root: PackagePaths.root)
    /// The preset names in `Presets/`, listed when the tests are built from the folder's contents.
    static let names: [String] = presetLibrary.presetNames()

    static func load(_ name: String) throws -> (file: String, session: Session) {
        let file = try presetLibrary.presetPath(name)
        return (file, try PresetDecoder.load(path: file))
    }

    static func request(_ name: String, length: SessionLength, output: String = "/dev/null") throws -> RenderRequest {
        let (file, session) = try load(name)
        return RenderRequest(
            session: session, presetFile: file, options: RenderOptions(rate: 8000, length: length),
            format: .wav(.int16), destination: .file(output), library: presetLibrary)
    }

    @Test func libraryHasAtLeastSixteenPresetsWithUniqueNames() throws {
        let names = Self.names
        #expect(names.count >= 16, "only \(names.count) presets: \(names)")
        #expect(Set(names).count == names.count, "a preset name appears twice: \(names)")
        let titles = try names.map { try Self.load($0).session.name }
        #expect(Set(titles).count == titles.count, "two presets share a 'name': \(titles)")
    }

    @Test(arguments: names)
    func presetDecodesAndPlansItsDefaultLength(name: String) throws {
        let (file, session) = try Self.load(name)
        #expect(session.name == name, "\(file): 'name' should match the file name")
        #expect(!session.description.isEmpty, "\(file): give a one-line 'description'")
        #expect(session.limitViolation == nil)
        for ref in session.soundsUsed {
            #expect(Self.presetLibrary.soundPath(ref, presetFile: file) != nil, "\(file): sound '\(ref)' not found")
        }

        let plan = try Renderer.schedulePlan(try Self.request(name, length: session.defaultLength))
        #expect(plan.schedule.cycleCount >= 1)
        // Every chained segment gets time at the default length.
        #expect(plan.schedule.cycleCounts.allSatisfy { $0 > 0 }, "\(file): segments \(plan.schedule.cycleCounts)")
        // A ramp reaches its target within the default session.
        for (index, segment) in session.segments.enumerated() {
            guard let ramp = segment.ramp, case .duration(let span) = ramp.span else { continue }
            let start = plan.schedule.segmentStarts[index]
            let end = index + 1 < session.segments.count ? plan.schedule.segmentStarts[index + 1] : plan.schedule.end
            #expect(end - start >= span, "\(file): segment \(index + 1) ends before its ramp does")
        }
    }

    @Test(arguments: names)
    func shortestSessionRendersExactFramesBelowFullScale(name: String) throws {
        let dir = TemporaryDirectory("preset-\(name)")
        let out = dir.file("\(name).wav")
        let request = try Self.request(name, length: .cycles(2), output: out)
        let plan = try Renderer.schedulePlan(request)
        let report = try Renderer.render(request)
        #expect(report.frames == plan.totalFrames)
        #expect(report.cycles == 2)

        let (rate, channels, samples) = try readSound(out)
        #expect(rate == 8000)
        #expect(channels == 2)
        #expect(samples.count % channels == 0)
        #expect(Int64(samples.count / channels) == plan.totalFrames)
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        #expect(peak < 1.0, "a sample reaches full scale (\(peak))")
        #expect(peak > 0, "the render is silent")
    }

    /// Sounds decoded once for every plan below.
    static let sounds = SoundCache()

    /// Every preset plans, with its sounds' real lengths, at the lengths people use most: one- and
    /// three-minute breaks, up to an hour, to the exact frame; a shorter session than the preset's
    /// says how it was fitted.
    @Test(arguments: names)
    func presetPlansAtOneThreeFourTenAndSixtyMinutes(name: String) throws {
        for minutes in [1.0, 3, 4, 10, 60] {
            var request = try Self.request(name, length: .duration(SessionTime(minutes: minutes)!))
            request.soundCache = Self.sounds
            let plan = try Renderer.check(request)
            #expect(plan.totalFrames == Int64(minutes * 60 * 8000), "\(name) at \(minutes) min")
            #expect(plan.schedule.cycleCount >= 1, "\(name) at \(minutes) min has no whole cycle")
            #expect(plan.schedule.end <= plan.total)
            #expect(plan.schedule.start >= .zero)
            // Settle and closing take at most a third of a fitted session; the breathing starts
            // after the settle and ends on a whole cycle, the time left going to the closing.
            let (_, session) = try Self.load(name)
            let fit = ShortSessionFit(session: session, total: plan.total)
            if minutes == 1 { #expect(fit.adapted == true, "\(name) at \(minutes) min was not fitted") }
            if fit.adapted {
                #expect((fit.session.settle + fit.session.closing).milliseconds * 3 <= plan.total.milliseconds + 2)
            }
            #expect(plan.schedule.start == fit.session.settle)
            let closing = plan.total - plan.schedule.end
            let longestCycle = fit.session.segments.map { max($0.pattern.cycleLength, $0.ramp?.target.cycleLength ?? .zero) }.max()!
            #expect(closing >= fit.session.closing && closing < fit.session.closing + longestCycle,
                    "\(name) at \(minutes) min: closing \(closing) for \(fit.session.closing)")
        }
    }

    /// One-minute sessions render, every layer mixed, to the exact frame; the report says what had
    /// to be left out.
    @Test(arguments: ["box-breath", "wind-down", "sleep", "four-seven-eight"])
    func oneMinuteSessionsRenderExactly(name: String) throws {
        let dir = TemporaryDirectory("oneminute-\(name)")
        let out = dir.file("\(name).wav")
        var request = try Self.request(name, length: .duration(.seconds(60)), output: out)
        request.soundCache = Self.sounds
        let report = try Renderer.render(request)
        #expect(report.frames == 60 * 8000)
        // Wind-down has no room for its last segment, nor any preset for its 7-s intro after a
        // 2-s wait in an 8-s settle: said, and left out.
        if name == "wind-down" { #expect(report.warnings.contains { $0.contains("Relax: left out") }, "\(report.warnings)") }
        let (_, channels, samples) = try readSound(out)
        #expect(samples.count / channels == 60 * 8000)
    }

    /// A session shorter than one cycle is still an error, one that says how long it must be.
    @Test func aSessionShorterThanOneCycleIsAnError() throws {
        let request = try Self.request("sleep", length: .duration(SessionTime(milliseconds: 15_000)))
        #expect {
            _ = try Renderer.schedulePlan(request)
        } throws: { "\($0)".contains("too short") }
    }
}
