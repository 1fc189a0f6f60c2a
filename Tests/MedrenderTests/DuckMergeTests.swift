import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The bed does not pump under prompts at short phases: dips closer than a breath cycle merge,
/// measured by ffmpeg's ebur128 filter (momentary loudness every 100 ms) on the file.
@Suite struct DuckMergeTests {
    /// ffmpeg's momentary loudness (400 ms windows) every 100 ms of `path`.
    static func momentary(_ path: String) throws -> [Double] {
        let result = try runProcess("/usr/bin/ffmpeg", ["-hide_banner", "-nostats", "-v", "verbose", "-i", path, "-af", "ebur128=framelog=verbose", "-f", "null", "-"])
        return result.stderr.split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("Parsed_ebur128"), line.contains(" t:"), let m = line.range(of: "M:") else { return nil }
            return Double(line[m.upperBound...].split(separator: " ").first ?? "")
        }
    }

    /// The number of separate dips: stretches below `steady` − 4 dB, each ended by a return to
    /// within 1 dB of `steady`.
    static func dips(_ m: [Double], steady: Double) -> Int {
        var count = 0, down = false
        for v in m {
            if !down, v < steady - 4 { down = true; count += 1 }
            if down, v > steady - 1 { down = false }
        }
        return count
    }

    @Test(arguments: ["4-4-4-4", "3-3-3-3", "4-7-8-0"])
    func promptsAtEveryPhaseMakeOneDip(pattern: String) throws {
        let dir = try TemporaryDirectory()
        let yaml = """
            pattern: \(pattern)
            settle: 12
            closing: 30
            voice:
              prompts: { inhale: voice-breathe-in, hold: voice-hold, exhale: voice-breathe-out }
              prompt-cycles: 4
              duck: -8
            ambience:
              beds: [ { generator: white, level: -30 } ]
              fade-in: 1
              fade-out: 1
            master: { fade-in: 0, fade-out: 0, loudness: -30 }
            """
        let req = try request(yaml, minutes: 3, rate: 16000, layers: [.ambience], format: .wav(.int16), output: dir.file("d.wav"), dir: dir)
        _ = try Renderer.render(req)
        let m = try Self.momentary(dir.file("d.wav"))
        #expect(m.count > 1000)
        // The bed's own level: the median of the last 30 s before its fade-out (no voice there).
        let tail = m[(m.count - 330)..<(m.count - 30)].sorted()
        let steady = tail[tail.count / 2]
        let dips = Self.dips(Array(m[20..<(m.count - 30)]), steady: steady)  // past the fade-in, before the fade-out
        #expect(dips == 1, "\(pattern): \(dips) separate dips")
        // And it does dip (by about the duck's 8 dB) while the prompts play.
        let deepest = m.dropFirst(20).min()!
        #expect(steady - deepest > 6, "\(pattern): dips only \(steady - deepest) dB")
    }
}
