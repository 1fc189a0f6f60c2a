import Foundation
import Medrender
import MedrenderTestSupport
import Synchronization
import Testing

/// Progress weighs each pass by what it costs, so the time left is not 3–4× too low while the
/// cheap measuring pass runs.
@Suite struct RenderProgressTests {
    static let formats: [OutputFormat] = [.wav(.int16), .flac(.int24), .ogg(quality: 4), .opus(quality: 4), .mp3(quality: 4)]

    @Test(arguments: formats, [true, false])
    func passesAddUpToTheWholeAndMeetAtTheirEnds(format: OutputFormat, checked: Bool) {
        let w = PassWeights.forFormat(format, checked: checked)
        #expect(abs(w.measuring + w.writing + w.checking - 1) < 1e-12)
        #expect(w.fraction(pass: 1, framesDone: 0, totalFrames: 1000) == 0)
        #expect(w.fraction(pass: 1, framesDone: 1000, totalFrames: 1000) == w.fraction(pass: 2, framesDone: 0, totalFrames: 1000))
        #expect(w.fraction(pass: 2, framesDone: 1000, totalFrames: 1000) == w.fraction(pass: 3, framesDone: 0, totalFrames: 1000))
        #expect(w.fraction(pass: 3, framesDone: 1000, totalFrames: 1000) == 1)
        if !checked { #expect(w.checking == 0 && w.fraction(pass: 2, framesDone: 1000, totalFrames: 1000) == 1) }
        // Zero frames is no division by zero; frames past the total count as done.
        #expect(w.fraction(pass: 2, framesDone: 0, totalFrames: 0) == w.measuring)
        #expect(w.fraction(pass: 1, framesDone: 2000, totalFrames: 1000) == w.measuring)
    }

    /// The measuring pass is the cheap one: a few per cent of an OGG render, not half of it. So
    /// with pass 1 done after 0.7 s, the time left is that of the rest, not another 0.7 s.
    @Test func measuringIsASmallShare() {
        let ogg = PassWeights.forFormat(.ogg(quality: 4), checked: true)
        // An OGG file is decoded as it is written; MP3 and Opus are read back after: a pass of their own.
        #expect(ogg.measuring < 0.1 && ogg.checking == 0)
        #expect(PassWeights.forFormat(.opus(quality: 4), checked: true).checking > 0.05)
        let wav = PassWeights.forFormat(.wav(.int16), checked: false)
        #expect(wav.measuring < 0.2 && wav.checking == 0)
        let elapsed = 0.7, fraction = ogg.fraction(pass: 1, framesDone: 1, totalFrames: 1)
        #expect(elapsed / fraction - elapsed > 10, "time left after the measuring pass")
        #expect(PassWeights.even.measuring == 0.5)
    }

    /// A real render reports a fraction that only grows, pass by pass, and ends at 1.
    @Test(arguments: [OutputFormat.wav(.int16), .ogg(quality: 4)])
    func aRenderReportsGrowingWeightedProgress(format: OutputFormat) throws {
        let dir = TemporaryDirectory("progress")
        let out = dir.file("p.\(format.fileExtension)")
        let req = try request("pattern: 4-0-4-0\nsettle: 2\nclosing: 3\n", minutes: 0.5, rate: 8000, format: format, output: out, dir: dir)
        let seen = Mutex<[(pass: Int, fraction: Double)]>([])
        _ = try req.job().run(to: .file(out)) { p in seen.withLock { $0.append((p.pass, p.fraction)) } }
        let reports = seen.withLock { $0 }
        #expect(reports.map(\.pass) == reports.map(\.pass).sorted())
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(reports.last?.fraction == 1)
        let weights = PassWeights.forFormat(format, checked: true)
        #expect(reports.first { $0.pass == 1 }.map { $0.fraction <= weights.measuring } == true)
    }
}
