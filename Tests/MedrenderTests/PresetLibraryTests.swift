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
            format: .wav(.int16), outputPath: output, library: presetLibrary)
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
}
