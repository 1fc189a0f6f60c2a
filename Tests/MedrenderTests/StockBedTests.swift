import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The stock library never loops: every bed a stock preset plays is generated, what a listener hears
/// of it does not come back within 20 minutes, and it plays at the level the loop it replaced did.
@Suite struct StockBedTests {
    /// Every bed of every stock preset (its own and its segments'), with the seed its plan gives it.
    static func stockBeds() throws -> [(preset: String, generator: BedGenerator?, seed: UInt64)] {
        try library.presetNames().flatMap { name -> [(String, BedGenerator?, UInt64)] in
            var session = try PresetDecoder.load(path: try library.presetPath(name))
            session.guide = nil  // its lines' lengths do not move the beds
            let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, channels: 1, length: .duration(.seconds(60)),
                                                                               layers: [.ambience]), sounds: [:])
            return plan.beds.map { (name, $0.generator, $0.loopOffsetSeed) }
        }
    }

    /// The level of `generator` (its RMS over each 100 ms, 8 kHz, one ear) over 20 minutes.
    static func levels(_ generator: BedGenerator, seed: UInt64) -> [Double] {
        let rate = 8000, hop = 800
        let source = generator.makeSource(rate: rate, channels: 1, seed: seed)
        var block = [Float](repeating: 0, count: hop)
        return (0..<(20 * 60 * rate / hop)).map { k in
            block.withUnsafeMutableBufferPointer { source.render(into: $0.baseAddress!, from: Int64(k * hop), frameCount: hop) }
            return (block.map { Double($0) * Double($0) }.reduce(0, +) / Double(hop)).squareRoot()
        }
    }

    /// The largest normalized autocorrelation of `x` (mean removed) at lags from `minLag` to half
    /// its length, each lag over the samples it overlaps.
    static func largestAutocorrelation(_ x: [Double], minLag: Int) -> Double {
        let mean = x.reduce(0, +) / Double(x.count)
        let d = x.map { $0 - mean }
        let zero = d.map { $0 * $0 }.reduce(0, +) / Double(d.count)
        return d.withUnsafeBufferPointer { p in
            (minLag...(p.count / 2)).map { lag in
                var sum = 0.0
                for i in 0..<(p.count - lag) { sum += p[i] * p[i + lag] }
                return sum / Double(p.count - lag) / zero
            }.max()!
        }
    }

    /// No stock preset plays a loop; each bed's level over 20 minutes correlates under 0.5 with
    /// itself at every lag from 20 s to 10 minutes (the shipped loops reached 1.000 at their
    /// lengths: the rain's 27 s, the ocean's 34 s).
    @Test func everyStockBedIsGeneratedAndNeverComesBack() throws {
        let beds = try Self.stockBeds()
        #expect(!beds.isEmpty)
        for bed in beds where bed.generator == nil { Issue.record("\(bed.preset) plays a loop") }
        var seen: Set<String> = []
        for case let (preset, generator?, seed) in beds where seen.insert("\(generator) \(seed)").inserted {
            let largest = Self.largestAutocorrelation(Self.levels(generator, seed: seed), minLag: 200)
            #expect(largest < 0.5, "\(preset)'s \(generator) (seed \(seed)) correlates \(largest) with itself at some lag past 20 s")
        }
    }

    /// The loudness of `bed` played alone for `minutes` at −26 LUFS, as the ambience stem measures it
    /// less the mix's gain.
    static func playedLevel(_ bed: String, minutes: Double, rate: Int) throws -> Double {
        let dir = TemporaryDirectory("bed-level")
        let stems = dir.path + "/stems"
        try FileManager.default.createDirectory(atPath: stems, withIntermediateDirectories: true)
        let yaml = """
            pattern: 4-0-4-0
            cues: { inhale: none, exhale: none }
            ambience: { beds: [ { \(bed), level: -26 } ], fade-in: 0, fade-out: 0 }
            master: { fade-out: 0 }
            """
        var req = try request(yaml, minutes: minutes, rate: rate, layers: [.ambience], format: .wav(.float32), output: dir.file("mix.wav"), dir: dir)
        req.stemsDirectory = stems
        let report = try Renderer.render(req)
        return try LevelTests.loudness(stems + "/mix-ambience.wav") - report.gainDecibels
    }

    /// A generated rain or ocean plays at its `level` within 1 LU of the loop it replaces at the
    /// same level (they were 3.2 and 5.8 LU under it); a stream and wind, which replace no loop,
    /// within 1 LU of the level. Three minutes at 24 kHz.
    @Test(arguments: [BedGenerator.rain, .ocean, .stream, .wind])
    func aGeneratedBedPlaysAtTheLevelOfTheLoopItReplaces(generator: BedGenerator) throws {
        let generated = try Self.playedLevel("generator: \(generator)", minutes: 3, rate: 24000)
        let reference = generator == .rain || generator == .ocean ? try Self.playedLevel("sound: \(generator)", minutes: 3, rate: 24000) : -26
        #expect(abs(generated - reference) <= 1, "\(generator): \(generated) LUFS generated, \(reference) LUFS from the loop or level")
    }
}
