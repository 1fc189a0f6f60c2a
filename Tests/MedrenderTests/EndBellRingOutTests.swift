import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// In a one-minute session the end bell rings out, or the plan says it cannot: for every stock
/// preset with an end bell, the bell's decay in the file (decoded by ffmpeg) is the bell's own,
/// not a fade's, from its onset to its last second. A guided preset's closing lines fill the end
/// of a short session: its bell moves before them and rings out all the same (heard here with
/// no dip under the words, `cue-under-prompt: 0`, so that its own fall is what is measured).
@Suite struct EndBellRingOutTests {
    static let names = library.presetNames()

    /// ffmpeg's decode of `path` as mono float samples at its rate.
    static func decode(_ path: String) throws -> [Float] {
        let dir = TemporaryDirectory("decode")
        let raw = dir.file("x.f32")
        let result = try runProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", path, "-ac", "1", "-f", "f32le", raw])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func rmsDecibels(_ x: ArraySlice<Float>) -> Double {
        10 * log10(x.map { Double($0) * Double($0) }.reduce(0, +) / Double(max(1, x.count)) + 1e-30)
    }

    @Test(arguments: names)
    func theEndBellRingsOutInAMinute(name: String) throws {
        let dir = try TemporaryDirectory()
        let file = try library.presetPath(name)
        var session = try PresetDecoder.load(path: file)
        guard let bell = session.bells.end else { return }
        session.voice.cueUnderPromptDecibels = 0
        let rate = 8000
        var req = RenderRequest(session: session, presetFile: file, options: RenderOptions(rate: rate, length: .duration(.seconds(60)), layers: [.bells]),
                                format: .wav(.float32), destination: .file(dir.file("b.wav")), library: library)
        req.threads = 1
        let plan = try Renderer.check(req)
        let cut = plan.notes.contains { $0.contains("end bell") && $0.contains("before it has rung out") }
        #expect(!(cut && session.guide != nil), "\(name): the end bell of a guided session is cut: \(plan.notes)")
        if cut { return }  // it says it cannot
        guard let last = plan.clips.last(where: { $0.sound == .file(bell) }) else {
            Issue.record("\(name): no end bell and no note why")
            return
        }
        _ = try Renderer.render(req)
        let mix = try Self.decode(dir.file("b.wav"))
        let sound = try Self.decode("\(PackagePaths.root)/Sounds/\(bell.name).ogg")  // 48 kHz
        let soundSeconds = Double(sound.count) / 48000
        // From 1 s after the onset to 1.5 s before the sound's end, the fall in the file is the sound's own, within 1.5 dB.
        let onset = Int(last.startFrame)
        let late = soundSeconds - 1.5
        #expect(onset + Int(late * Double(rate)) + rate / 2 <= mix.count, "\(name): the file ends before the bell has rung")
        func fileLevel(_ t: Double) -> Double {
            let a = onset + Int(t * Double(rate))
            return Self.rmsDecibels(mix[a..<min(mix.count, a + rate / 2)])
        }
        func soundLevel(_ t: Double) -> Double {
            let a = Int(t * 48000)
            return Self.rmsDecibels(sound[a..<(a + 24000)])
        }
        let fileFall = fileLevel(1) - fileLevel(late), soundFall = soundLevel(1) - soundLevel(late)
        #expect(abs(fileFall - soundFall) <= 1.5, "\(name): the end bell falls \(fileFall) dB in the file, \(soundFall) dB on its own")
    }
}
