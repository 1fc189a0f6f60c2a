import Foundation
import MedrenderTestSupport
import Testing

/// The bed stays under the words: on every stock preset with a voice, the ambience (two minutes
/// at 8 kHz, the ambience layer alone, which ducks under the voice it does not mix) dips under
/// each voice event of the cue sheet by the preset's duck (against the same render with `--duck 0`,
/// so the bed's own swells cancel out), and never changes by more than 6 dB in 100 ms outside the
/// first and last 200 ms of a voice event (nor in its fades): it is not heard switching off and on.
@Suite struct BedDuckTests {
    /// The stock presets with a voice (a script, or recorded clips), and the depth their bed dips
    /// by under it (a guided script's −15 dB, else the preset's `voice.duck`, −8 by default).
    static let presets: [(name: String, duck: Double)] = StockAudioTests.presets.compactMap { name in
        guard let text = try? String(contentsOfFile: "\(PackagePaths.root)/Presets/\(name).yaml", encoding: .utf8),
              text.contains("\nvoice:") || text.contains("\nguide:"), text.contains("\nambience:") else { return nil }
        return (name, text.contains("\nguide:") ? 15 : 8)
    }

    struct Voice: Decodable {
        var type: String
        var frame: Int
        var endFrame: Int?
    }

    struct CueSheet: Decodable { var events: [Voice] }

    struct Report: Decodable { var gainDecibels: Double }

    /// The bed's level, dB, over 100 ms from each 10 ms (every channel's power).
    static func envelope(_ sound: (rate: Int, channels: Int, samples: [Float])) -> [Double] {
        let window = sound.rate / 10 * sound.channels, hop = sound.rate / 100 * sound.channels
        var levels: [Double] = []
        var start = 0
        while start + window <= sound.samples.count {
            var power = 0.0
            for x in sound.samples[start..<start + window] { power += Double(x) * Double(x) }
            levels.append(10 * log10(power / Double(window) + 1e-12))
            start += hop
        }
        return levels
    }

    @Test(arguments: presets.map(\.name))
    func theBedDipsByItsDuckAndNeverSwitches(preset: String) throws {
        let duck = try #require(Self.presets.first { $0.name == preset }).duck
        let dir = TemporaryDirectory("duck-\(preset)")
        let environment = ["XDG_CACHE_HOME": sharedSpeechCacheHome]
        let options = ["--preset", preset, "--minutes", "2", "--rate", "8000"]
        // Each render is levelled on its own loudness: its gain (from its report) is taken back out.
        var gains: [Double] = []
        for (name, extra) in [("bed.wav", []), ("undipped.wav", ["--duck", "0"])] {
            let render = try runProcess(PackagePaths.executable, options + extra + ["--layers", "ambience", "--json", "-o", dir.file(name)],
                                        in: PackagePaths.root, environment: environment)
            #expect(render.status == 0, "\(render.stderr)")
            gains.append(try JSONDecoder().decode(Report.self, from: Data(render.stdout.utf8)).gainDecibels)
        }
        let cues = try runProcess(PackagePaths.executable, ["cues"] + options + ["-o", dir.file("cues.json")],
                                  in: PackagePaths.root, environment: environment)
        #expect(cues.status == 0, "\(cues.stderr)")
        let sheet = try JSONDecoder().decode(CueSheet.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("cues.json"))))
        let voices = sheet.events.filter { $0.type == "voice" }.compactMap { e in e.endFrame.map { e.frame..<$0 } }
        try #require(!voices.isEmpty, "\(preset) has no voice in its cue sheet")
        let bed = try readSound(dir.file("bed.wav")), undipped = try readSound(dir.file("undipped.wav"))
        let rate = bed.rate, levels = Self.envelope(bed), open = Self.envelope(undipped)
        let hop = rate / 100, window = rate / 10, edge = rate / 5, fades = 10 * rate
        let body = fades..<(bed.samples.count / bed.channels - fades)
        // The voice events' first and last 200 ms, where the bed may move faster.
        let edges = voices.flatMap { [$0.lowerBound..<min($0.upperBound, $0.lowerBound + edge), max($0.lowerBound, $0.upperBound - edge)..<$0.upperBound] }
        var largest = 0.0, at = 0
        for k in 0..<(levels.count - 10) {
            // The two windows compared cover these frames together.
            let span = k * hop..<(k * hop + window + 10 * hop)
            guard body.contains(span.lowerBound), body.contains(span.upperBound), !edges.contains(where: { $0.overlaps(span) }) else { continue }
            let change = abs(levels[k + 10] - levels[k])
            if change > largest { (largest, at) = (change, k) }
        }
        #expect(largest <= 6, "\(preset): the bed changes by \(largest) dB in 100 ms at \(Double(at) / 100) s")
        // The dip under the words: the median, over the windows inside a voice event past its
        // edges, of the bed without the duck against the bed with it, both at the same gain.
        let dips = levels.indices.filter { k in voices.contains { k * hop >= $0.lowerBound + edge && k * hop + window <= $0.upperBound - edge } }
            .map { open[$0] - levels[$0] - gains[1] + gains[0] }.sorted()
        try #require(!dips.isEmpty, "\(preset): no voice event longer than 500 ms")
        let depth = dips[dips.count / 2]
        #expect(abs(depth - duck) <= 0.5, "\(preset): the bed dips \(depth) dB under the voice, not \(duck)")
    }
}
