import Foundation
@testable import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// A render from a frame gives the frames of a whole render from that frame on: written to a
/// 32-bit float WAV, the whole render and the render from the point agree within -90 dBFS at
/// every frame (the limiter is warmed from before the point; everything else is computed from
/// absolute frames).
@Suite struct PointRenderTests {
    /// Two beds crossfading at the middle, a voice the ambience ducks under, bells, and a loudness
    /// target high enough that the limiter works.
    static let preset = """
        name: point-render
        minutes: 2
        pattern: 4-2-6-0
        settle: 10
        closing: 15
        cues:
          inhale: { tone: bell, pitch: 659.26, gain: -10 }
          exhale: { tone: bowl, pitch: 440, gain: -10 }
        voice:
          intro: voice-intro
          outro: voice-outro
        ambience:
          beds:
            - { sound: rain, level: -16 }
            - { sound: ocean, level: -14, from: 0.5 }
          crossfade: 8
          fade-in: 4
          fade-out: 6
        bells:
          start: bell
          end: bell
        master:
          loudness: -12
          true-peak: -1

        """

    /// -90 dBFS, as a linear difference.
    static let tolerance: Float = 3.1623e-5

    @Test func aRenderFromAFrameMatchesTheWholeRender() throws {
        let dir = TemporaryDirectory("point-render")
        let file = dir.write("point.yaml", Self.preset)
        let session = try PresetDecoder.load(path: file)
        let request = RenderRequest(session: session, presetFile: file, options: RenderOptions(rate: 16000, length: session.defaultLength),
                                    format: .wav(.float32), destination: .file(dir.file("whole.wav")), library: library)
        let prepared = try Renderer.prepare(request)
        let report = try Renderer.render(prepared, to: .file(dir.file("whole.wav")))
        let whole = try readSound(dir.file("whole.wav"))
        let plan = prepared.plan
        let channels = plan.channels
        #expect(Int64(whole.samples.count / channels) == plan.totalFrames)
        // The limiter must have worked, or the warm-up is not tested.
        #expect(report.limiterReductionDecibels > 0.1, "the limiter did nothing (\(report.limiterReductionDecibels) dB)")

        let beds = plan.beds.sorted { $0.startFrame < $1.startFrame }
        try #require(beds.count == 2 && beds[1].fadeInFrames > 0, "the preset has a crossfade: \(beds)")
        let crossfade = beds[1].startFrame + beds[1].fadeInFrames / 2
        let duck = try #require(plan.ducking.stretches.first, "the voice ducks the ambience")
        let inDuck = (duck.start + duck.end) / 2
        let block = Int64(Renderer.blockFrames)
        // Just before the loudest sample, where the limiter is holding the mix down.
        let loudest = Int64(whole.samples.indices.max { abs(whole.samples[$0]) < abs(whole.samples[$1]) }! / channels)
        let frames: [(String, Int64)] = [
            ("start", 0), ("one frame", 1), ("one block", block), ("one block plus one", block + 1),
            ("inside the duck", inDuck), ("inside the crossfade", crossfade), ("minute 1", 60 * 16000 + 7),
            ("just before the loudest peak", max(0, loudest - 20)), ("the last frame", plan.totalFrames - 1),
        ]
        for (name, start) in frames {
            let point = PointRender(prepared, startFrame: start)
            var given: [Float] = []
            point.run { samples, count in
                given.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * channels))
                return true
            }
            #expect(Int64(given.count / channels) == plan.totalFrames - start, "\(name): \(given.count / channels) frames")
            let expected = whole.samples[(Int(start) * channels)...]
            var largest: Float = 0, differing = 0
            for (a, b) in zip(given, expected) {
                let d = abs(a - b)
                largest = max(largest, d)
                if d > 0 { differing += 1 }
            }
            #expect(largest <= Self.tolerance, "\(name) (frame \(start)): differs by \(largest) (\(20 * log10(Double(largest))) dBFS)")
            print("point render from \(name) (frame \(start)): \(differing) of \(given.count) samples differ, largest \(largest)")
        }
    }

    /// A point past the end gives nothing; the gain is the whole session's at any point.
    @Test func theGainIsTheWholeSessions() throws {
        let dir = TemporaryDirectory("point-gain")
        let file = dir.write("point.yaml", Self.preset)
        let session = try PresetDecoder.load(path: file)
        let request = RenderRequest(session: session, presetFile: file, options: RenderOptions(rate: 8000, length: session.defaultLength),
                                    format: .wav(.float32), destination: .file(dir.file("x.wav")), library: library)
        let prepared = try Renderer.prepare(request)
        let early = PointRender(prepared, startFrame: 0), late = PointRender(prepared, startFrame: prepared.plan.totalFrames / 2)
        #expect(early.gainDecibels == late.gainDecibels)
        #expect(early.gainDecibels != 0)
        let past = PointRender(prepared, startFrame: prepared.plan.totalFrames + 100)
        var count = 0
        past.run { _, n in count += n; return true }
        #expect(count == 0 && past.frameCount == 0)
    }
}
