import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// guided-sleep-478 as rendered, its voice and cues apart (stems of one render): every bowl that
/// starts before a line of the script and rings into it keeps its onset, and every line stays well
/// clear of the cues under it.
@Suite struct CueOnsetTests {
    static let rate = 8000

    /// The level of `frames` in dB (full scale 0).
    static func level(_ samples: [Float], _ frames: Range<Int64>) -> Double {
        let frames = frames.clamped(to: 0..<Int64(samples.count))
        let sum = frames.reduce(0.0) { $0 + Double(samples[Int($1)]) * Double(samples[Int($1)]) }
        return 10 * log10(sum / Double(max(1, frames.count)) + 1e-20)
    }

    /// The loudest 100 ms of `frames`, in 50-ms steps.
    static func loudest(_ samples: [Float], _ frames: Range<Int64>) -> Double {
        let window = Int64(rate / 10)
        return stride(from: frames.lowerBound, to: max(frames.lowerBound + 1, frames.upperBound - window), by: Int(window / 2))
            .map { level(samples, $0..<min(frames.upperBound, $0 + window)) }.max() ?? -200
    }

    @Test func everyBowlBeforeALineKeepsItsOnsetAndEveryLineItsClearance() throws {
        let dir = TemporaryDirectory("cue-onsets")
        let file = try library.presetPath("guided-sleep-478")
        let session = try PresetDecoder.load(path: file)
        var request = RenderRequest(
            session: session, presetFile: file,
            options: RenderOptions(rate: Self.rate, channels: 1, length: session.defaultLength, layers: [.voice, .cues]),
            format: .wav(.float32), destination: .file(dir.file("mix.wav")), library: library)
        request.stemsDirectory = dir.file("stems")
        try FileManager.default.createDirectory(atPath: dir.file("stems"), withIntermediateDirectories: true)
        let plan = try SpeechSynthesizer.$cacheDirectoryOverride.withValue(dir.file("cache")) {
            _ = try Renderer.render(request)
            return try Renderer.check(request)
        }
        let voice = try readSound(dir.file("stems/mix-voice.wav")).samples
        let cues = try readSound(dir.file("stems/mix-cues.wav")).samples
        let lines = plan.guide.lines
        // Each cue's first 250 ms; the same kind's level where no line is near is the cue undipped.
        var undipped: [PhaseKind: Double] = [:]
        var beforeLines: [(kind: PhaseKind, frame: Int64, onset: Double)] = []
        for phase in plan.schedule {
            guard let cue = plan.cueEvent(for: phase), cue.maximumFrames > 0 else { continue }
            let onset = Self.level(cues, cue.startFrame..<(cue.startFrame + Int64(Self.rate / 4)))
            let line = lines.first { $0.startFrame < cue.startFrame + cue.maximumFrames && cue.startFrame < $0.endFrame }
            if let line, line.startFrame > cue.startFrame {
                beforeLines.append((phase.kind, cue.startFrame, onset))
            } else if line == nil, !lines.contains(where: { abs($0.startFrame - cue.startFrame) < Int64(10 * Self.rate) }) {
                undipped[phase.kind] = undipped[phase.kind] ?? onset
            }
        }
        // The script has three lines that start while a bowl rings.
        #expect(beforeLines.count >= 3, "\(beforeLines)")
        for cue in beforeLines {
            let reference = try #require(undipped[cue.kind])
            #expect(abs(cue.onset - reference) <= 1,
                    "the \(cue.kind) bowl at frame \(cue.frame) starts at \(cue.onset) dB, the same bowl undipped at \(reference) dB")
        }
        // Every line's words at least 18 dB over the loudest 100 ms of the cues under them.
        for line in lines {
            let margin = Self.level(voice, line.startFrame..<line.endFrame) - Self.loudest(cues, line.startFrame..<line.endFrame)
            #expect(margin >= 18, "guide line \(line.index + 1): \(margin) dB over the cues")
        }
    }
}
