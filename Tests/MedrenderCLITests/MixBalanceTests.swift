import Foundation
import MedrenderTestSupport
import Testing

/// The mix is balanced as a broadcast engineer would have it, on every stock preset at default
/// settings (two minutes at 8 kHz, 32-bit float, read by ffmpeg's `ebur128` and numpy-free sums
/// here): a session with a voice is levelled on it (the voice stem at the target, as the report
/// says), the true-peak limiter takes at most 1 dB off a spoken line and 2 dB anywhere (the file
/// against the same session at −40 LUFS, where it does nothing, both at one gain), and no bell
/// strikes and no cue sounds louder (momentary, its stem's) than the file's integrated loudness
/// + 6 LU, nor than the voice (its stem's loudest 400 ms).
@Suite struct MixBalanceTests {
    struct Report: Decodable {
        var gainDecibels: Double
        var loudnessLUFS: Double?
        var speechLoudnessLUFS: Double?
        var loudnessRangeLU: Double?
    }

    struct Event: Decodable {
        var type: String
        var frame: Int
        var endFrame: Int?
    }

    struct CueSheet: Decodable { var events: [Event] }

    /// ffmpeg's integrated loudness and its momentary loudness every 100 ms (−120 for silence).
    static func meter(_ path: String) throws -> (integrated: Double, momentary: [Double]) {
        let run = try runProcess(which("ffmpeg") ?? "ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-af", "ebur128", "-f", "null", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        let momentary = lines.compactMap { line -> Double? in
            guard line.contains(" M:"), let m = line.range(of: " M:") else { return nil }
            let value = line[m.upperBound...].split(separator: " ").first.map(String.init) ?? ""
            return Double(value) ?? -120
        }
        let summary = try #require(run.stderr.range(of: "Summary:", options: .backwards))
        let tail = run.stderr[summary.upperBound...]
        let i = try #require(tail.range(of: "I:"))
        let integrated = try #require(Double(tail[i.upperBound...].split(separator: " ").first ?? ""))
        return (integrated, momentary)
    }

    /// The preset's loudness target (`master.loudness`), −18 when it gives none.
    static func target(of preset: String) -> Double {
        let text = (try? String(contentsOfFile: "\(PackagePaths.root)/Presets/\(preset).yaml", encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("  loudness:") }) else { return -18 }
        return Double(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? -18
    }

    /// Each 50-ms window's power, every channel summed.
    static func powers(_ sound: (rate: Int, channels: Int, samples: [Float])) -> [Double] {
        let window = sound.rate / 20 * sound.channels
        return stride(from: 0, to: sound.samples.count - window + 1, by: window).map { start in
            sound.samples[start..<start + window].reduce(0.0) { $0 + Double($1) * Double($1) }
        }
    }

    /// The largest of `values` at the 100-ms steps over `frames` (and the 400 ms after, the
    /// momentary window's reach), at `rate`.
    static func largest(_ values: [Double], over spans: [Range<Int>], rate: Int) -> Double? {
        var most: Double?
        for span in spans {
            let first = span.lowerBound * 10 / rate, last = min(values.count, span.upperBound * 10 / rate + 4)
            for k in first..<max(first, last) { most = max(most ?? values[k], values[k]) }
        }
        return most
    }

    /// The session's cue sheet, two minutes at `rate`.
    static func events(_ preset: String, rate: Int, in dir: TemporaryDirectory, environment: [String: String]) throws -> [Event] {
        let cues = try runProcess(PackagePaths.executable, ["cues", "--preset", preset, "--minutes", "2", "--rate", "\(rate)", "-o", dir.file("cues.json")],
                                  in: PackagePaths.root, environment: environment)
        try #require(cues.status == 0, "\(cues.stderr)")
        return try JSONDecoder().decode(CueSheet.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("cues.json")))).events
    }

    /// At 8 kHz, save a session with no voice: there nothing caps a bell or a cue but its preset's
    /// gain, so it is heard whole, at 48 kHz, where a bell's upper partials add their loudness.
    @Test(.enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed: `make test-deps` installs it"), arguments: StockAudioTests.presets)
    func theMixIsBalanced(preset: String) throws {
        let dir = TemporaryDirectory("balance-\(preset)")
        let environment = ["XDG_CACHE_HOME": sharedSpeechCacheHome]
        var events = try Self.events(preset, rate: 8000, in: dir, environment: environment)
        let voiced = events.contains { $0.type == "voice" }
        let rate = voiced ? 8000 : 48000
        if !voiced { events = try Self.events(preset, rate: rate, in: dir, environment: environment) }
        let options = ["--preset", preset, "--minutes", "2", "--rate", "\(rate)", "--bits", "32f", "--json"]
        var reports: [Report] = []
        for (name, extra) in [("mix.wav", ["--stems", dir.file("stems")]), ("quiet.wav", ["--loudness", "-40"])] {
            let render = try runProcess(PackagePaths.executable, options + extra + ["-o", dir.file(name)], in: PackagePaths.root,
                                        environment: environment)
            try #require(render.status == 0, "\(render.stderr)")
            reports.append(try JSONDecoder().decode(Report.self, from: Data(render.stdout.utf8)))
        }
        let lines = events.filter { $0.type == "voice" }.compactMap { e in e.endFrame.map { e.frame..<$0 } }
        let bells = events.filter { $0.type == "bell" }.map { $0.frame..<($0.frame + 3 * rate) }
        let report = reports[0]
        #expect(report.loudnessRangeLU != nil, "\(preset): the report gives no loudness range")
        let mix = try Self.meter(dir.file("mix.wav"))

        // Levelled on the voice: its stem, read by ffmpeg, at the target and as reported.
        if !lines.isEmpty {
            let speech = try Self.meter(dir.file("stems/mix-voice.wav")).integrated
            #expect(abs(speech - Self.target(of: preset)) <= 0.5, "\(preset): the voice is \(speech) LUFS for a \(Self.target(of: preset)) LUFS target")
            let reported = try #require(report.speechLoudnessLUFS, "\(preset): the report gives no voice loudness")
            #expect(abs(reported - speech) <= 0.2, "\(preset): the report says the voice is \(reported) LUFS, ffmpeg reads \(speech)")
        }

        // The limiter's gain reduction, 50 ms at a time, where the quiet render is not silent.
        let loud = Self.powers(try readSound(dir.file("mix.wav"))), quiet = Self.powers(try readSound(dir.file("quiet.wav")))
        let shift = (reports[0].gainDecibels - reports[1].gainDecibels) / 10
        var overall = 0.0, spoken = 0.0
        for k in loud.indices where quiet[k] > 1e-10 * Double(rate / 20) {
            let reduction = 10 * (log10(quiet[k]) + shift - log10(max(loud[k], 1e-30)))
            overall = max(overall, reduction)
            if lines.contains(where: { $0.contains(k * rate / 20) }) { spoken = max(spoken, reduction) }
        }
        #expect(spoken <= 1, "\(preset): the limiter takes \(spoken) dB off a spoken line")
        #expect(overall <= 2, "\(preset): the limiter takes \(overall) dB off the mix")

        // No bell or cue startles: its loudest 400 ms against the file's integrated loudness and the
        // voice's loudest. The bells', the cues' and the voice's own, from their stems.
        let voice = lines.isEmpty ? nil : Self.largest(try Self.meter(dir.file("stems/mix-voice.wav")).momentary, over: lines, rate: rate)
        var struck: [(what: String, loudest: Double)] = []
        if !bells.isEmpty, let bell = Self.largest(try Self.meter(dir.file("stems/mix-bells.wav")).momentary, over: bells, rate: rate) {
            struck.append(("a bell", bell))
        }
        if FileManager.default.fileExists(atPath: dir.file("stems/mix-cues.wav")), let cue = try Self.meter(dir.file("stems/mix-cues.wav")).momentary.max() {
            struck.append(("a cue", cue))
        }
        for (what, loudest) in struck {
            #expect(loudest <= mix.integrated + 6, "\(preset): \(what) sounds at \(loudest) LUFS momentary, the file is \(mix.integrated) LUFS")
            if let voice { #expect(loudest <= voice, "\(preset): \(what) sounds at \(loudest) LUFS momentary, over the voice's \(voice)") }
        }
    }
}
