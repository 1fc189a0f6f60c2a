import Foundation
import MedrenderIO
import MedrenderTestSupport
import Testing

@Suite struct CommandLineTests {
    @Test func rendersBoxBreathThatFfmpegAndSoxRead() throws {
        let dir = TemporaryDirectory("e2e")
        let out = dir.file("out.ogg")
        let result = try runMedrender(["--preset", "box-breath", "--minutes", "2", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let ffprobe = try #require(which("ffprobe"), "ffprobe is installed by make test")
        let probe = try runProcess(ffprobe, ["-v", "error", "-show_entries", "stream=sample_rate,channels,duration_ts",
                                              "-of", "default=noprint_wrappers=1", out])
        #expect(probe.stdout.contains("sample_rate=48000"))
        #expect(probe.stdout.contains("channels=2"))
        #expect(probe.stdout.contains("duration_ts=5760000"))
        // ffmpeg decodes the whole file without an error, and counts the same samples.
        let ffmpeg = try #require(which("ffmpeg"))
        let decode = try runProcess(ffmpeg, ["-v", "error", "-i", out, "-f", "s16le", "-ac", "1", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")
        let sox = try #require(which("soxi"))
        let soxi = try runProcess(sox, ["-s", out])
        #expect(soxi.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "5760000")
    }

    @Test func cueSheetOptionWritesFramesOfTheRender() throws {
        let dir = TemporaryDirectory("sheet")
        let result = try runMedrender(["--preset", "coherent", "--minutes", "2", "--rate", "22.05k", "--layers", "cues",
                                       "-o", dir.file("c.wav"), "--bits", "32f", "--cues", dir.file("c.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: dir.file("c.json")))) as! [String: Any]
        let cues = json["cues"] as! [[String: Any]]
        let (rate, _, samples) = try readSound(dir.file("c.wav"))
        #expect(rate == 22050, "--rate 22.05k wrote \(rate) Hz")
        #expect(cues.count > 10)
        for cue in cues {
            let f = (cue["frame"] as! NSNumber).intValue
            #expect(samples[(f - 1) * 2] == 0 && samples[f * 2] != 0)
            #expect(["inhale", "exhale"].contains(cue["kind"] as! String))
        }
    }

    @Test(arguments: [
        (["--preset", "box-breath", "--minutes", "0", "-o", "x.ogg"], 64, "--minutes"),
        (["--preset", "box-breath", "--minutes", "-5", "-o", "x.ogg"], 64, "minutes"),
        (["--preset", "box-breath", "--minutes", "abc", "-o", "x.ogg"], 64, "abc"),
        (["--preset", "box-breath", "--minutes", "nan", "-o", "x.ogg"], 64, "--minutes"),
        (["--preset", "box-breath", "--minutes", "1e9", "-o", "x.ogg"], 64, "--minutes"),
        (["--preset", "box-breath", "--minutes", "1", "--cycles", "3", "-o", "x.ogg"], 64, "--minutes and --cycles are both given"),
        (["--preset", "box-breath", "--rate", "7999", "-o", "x.ogg"], 64, "8000 to 192000"),
        (["--preset", "box-breath", "--quality", "11", "-o", "x.ogg"], 64, "-1 to 10"),
        (["--preset", "box-breath", "--layers", "cues,drums", "-o", "x.ogg"], 64, "drums"),
        (["--preset", "box-breath", "-o", "x.xyz"], 64, ".ogg, .wav, .flac, .opus or .mp3"),
        (["--preset", "box-breath", "--bits", "12", "-o", "x.wav"], 64, "'16', '24' or '32f'"),
        (["--preset", "box-breath", "--duck", "3", "-o", "x.ogg"], 64, "--duck 3.0 is out of range; give -40 to 0 dB"),
        (["--preset", "box-breath", "--ambience-level", "-5", "-o", "x.ogg"], 64, "--ambience-level -5.0 is out of range; give -70 to -10 LUFS"),
        (["--preset", "box-breath", "--format", "aiff", "-o", "x.ogg"], 64, "'--format <format>'. Please provide one of 'ogg', 'wav', 'flac', 'opus' or 'mp3'"),
        (["--preset", "box-breath", "--rate", "44.1x", "-o", "x.ogg"], 64, "The value '44.1x' is invalid for '--rate <hz>'"),
        (["--preset", "box-breath", "--rate", "44.1001k", "-o", "x.ogg"], 64, "'44.1001k' is invalid"),
        (["--preset", "box-breath", "--rate", "7.999k", "-o", "x.ogg"], 64, "--rate 7999 is out of range; give 8000 to 192000 Hz"),
        (["--preset", "box-breath", "--frobnicate", "-o", "x.ogg"], 64, "frobnicate"),
        (["--preset", "box-breath", "--format", "wav", "-o", "x.ogg"], 64, "x.ogg, which ends in .ogg; end the name in .wav or drop --format"),
        (["--preset", "box-breath", "--title", String(repeating: "t", count: 1100), "-o", "x.ogg"], 64, "--title is 1100 bytes of text"),
        (["--preset", "box-breth", "-o", "x.ogg"], 66, "did you mean 'box-breath'"),
        (["--preset", "box-breath", "--minutes", "0.2", "-o", "x.ogg"], 65, "too short"),
    ] as [([String], Int32, String)])
    func badCommandLinesGetAClearErrorAndSysexitCode(arguments: [String], code: Int32, message: String) throws {
        let dir = TemporaryDirectory("usage")
        let args = arguments.map { $0.hasPrefix("x.") ? dir.file($0) : $0 }
        let result = try runMedrender(args)
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(dir.contents().isEmpty)
    }

    @Test func badPresetsAreExit65WithFileLineAndColumn() throws {
        let dir = TemporaryDirectory("bad")
        let cases: [(String, String)] = [
            ("pattern: 4-4-4-4\nminuts: 10\n", "preset.yaml:2:1: minuts: unknown key 'minuts'; did you mean 'minutes'?"),
            ("pattern: 4-4-4-4\nsettle: [1, 2\n", "preset.yaml:3:1: is not valid YAML"),
            ("pattern: 4-4-x-4\n", "preset.yaml:1:10: pattern: 'x' in '4-4-x-4' is not a number"),
            ("pattern: { inhale: 370, exhale: 4 }\n", "pattern.inhale: 370 s is out of range; use 0 to 300 s"),
            ("minutes: 10\n", "missing 'pattern'"),
            ("pattern: 0.2-0-0.3-0\n", "too short; a cycle must last at least 1 s"),
            ("just text\n", "a preset is a YAML mapping"),
        ]
        for (yaml, message) in cases {
            let file = dir.write("preset.yaml", yaml)
            let result = try runMedrender(["validate", file])
            #expect(result.status == 65, "\(yaml): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(yaml): \(result.stderr)")
            let render = try runMedrender(["--preset", file, "-o", dir.file("x.ogg")])
            #expect(render.status == 65)
        }
    }

    /// `validate` refuses what a render would, with the same message and code: the plan with the
    /// sounds' real lengths, and every sound decoded.
    @Test func validateRefusesWhatARenderWould() throws {
        let dir = TemporaryDirectory("validate")
        FileManager.default.createFile(atPath: dir.file("text.wav"), contents: Data("not audio".utf8))
        let cases: [(String, Int32, String)] = [
            ("pattern: 4-0-4-0\nvoice: { clips: [ { sound: voice-hold, at: 5000 } ] }\n", 65,
             "the voice clip 'voice-hold' (0.51 s) at 5000 s would end after the session's 600 s; start it at 599.49 s at the latest"),
            ("pattern: 0.3-0.3-0.3-0.3\nvoice: { prompts: { inhale: voice-intro } }\n", 65, "longer than the inhale phase (0.3 s)"),
            ("pattern: 4-4-4-4\nvoice: { intro: voice-intro, intro-at: 3000 }\n", 65,
             "it would start 2980 s after the settle ends; make 'settle' longer by 2987.315 s"),
            ("pattern: 4-4-4-4\nambience: [text.wav]\n", 65, "is not a sound file medrender can read"),
            ("pattern: 4-4-4-4\nmaster: { fade-in: 400, fade-out: 300 }\n", 65,
             "the master fade-in (400 s) and fade-out (300 s) last longer than the 600 s session"),
            ("pattern: 4-4-4-4\nambience: [rian]\n", 66, "the sound 'rian' was not found (did you mean 'rain'?); Sounds/ offers: bell"),
        ]
        for (yaml, code, message) in cases {
            let file = dir.write("preset.yaml", yaml)
            let validate = try runMedrender(["validate", file])
            #expect(validate.status == code, "\(yaml): \(validate.stderr)")
            #expect(validate.stderr.contains(message), "\(yaml): \(validate.stderr)")
            let render = try runMedrender(["--preset", file, "--rate", "8000", "-o", dir.file("x.ogg")])
            #expect(render.status == code, "\(yaml): \(render.stderr)")
            #expect(render.stderr.contains(message), "\(yaml): \(render.stderr)")
            let cues = try runMedrender(["cues", "--preset", file, "-o", dir.file("x.json")])
            #expect(cues.status == code, "no cue sheet for what cannot be rendered: \(yaml): \(cues.stderr)")
        }
        #expect(dir.contents() == ["preset.yaml", "text.wav"])
        let folder = try runMedrender(["validate", PackagePaths.root + "/Presets"])
        #expect(folder.status == 66)
        #expect(folder.stderr.contains("is a folder; give a preset's .yaml file"), "\(folder.stderr)")
    }

    /// Without a library, a command that needs one says where it looked and how to point at one;
    /// with a bad preset in it, `presets` still lists the others and exits 65.
    @Test func aMissingLibraryOrABadPresetInItIsReported() throws {
        let dir = TemporaryDirectory("nolibrary")
        let nowhere = ["MEDRENDER_HOME": dir.file("nowhere")]
        for arguments in [["presets"], ["build", "-o", dir.file("dist")], ["--preset", "box-breath", "-o", dir.file("x.ogg")]] {
            let result = try runProcess(PackagePaths.executable, arguments, in: dir.path, environment: nowhere)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("MEDRENDER_HOME=\(dir.file("nowhere")) holds no Presets/ folder"), "\(arguments): \(result.stderr)")
        }
        #expect(dir.contents().isEmpty)

        let presets = dir.file("library/Presets")
        try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: PackagePaths.root + "/Presets/coherent.yaml", toPath: presets + "/coherent.yaml")
        try "pattern: [4, 4\n".write(toFile: presets + "/bad.yaml", atomically: true, encoding: .utf8)
        let list = try runProcess(PackagePaths.executable, ["presets"], in: dir.path, environment: ["MEDRENDER_HOME": dir.file("library")])
        #expect(list.status == 65, "\(list.stderr)")
        // The teacher's library stands in front of the stock one; its coherent shadows the stock one.
        #expect(list.stdout.split(separator: "\n").contains { $0.hasPrefix("coherent ") && $0.hasSuffix("[\(dir.file("library"))]") },
                "\(list.stdout)")
        #expect(list.stderr.contains("bad.yaml:2:1: is not valid YAML"), "\(list.stderr)")
    }

    @Test func presetsListsTheLibraryAndEveryPresetValidates() throws {
        let list = try runMedrender(["presets", "--json"])
        #expect(list.status == 0)
        let entries = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        let names = entries.map { $0["name"] as! String }
        #expect(Set(["box-breath", "relax-4-6", "coherent"]).isSubset(of: Set(names)))
        let files = names.map { PackagePaths.root + "/Presets/\($0).yaml" }
        let validate = try runMedrender(["validate"] + files)
        #expect(validate.status == 0, "\(validate.stderr)")
    }

    @Test func fileSizeLimitIsExit74AndLeavesNothing() throws {
        let dir = TemporaryDirectory("ulimit")
        let out = dir.file("big.wav")
        let existing = Data("the old file".utf8)
        FileManager.default.createFile(atPath: out, contents: existing)
        let quoted = "'\(PackagePaths.executable)' --preset box-breath --minutes 2 --layers cues -o '\(out)'"
        let result = try runProcess("/bin/bash", ["-c", "ulimit -f 200; exec \(quoted)"], in: PackagePaths.root)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("ulimit"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: out) == existing)
        #expect(dir.contents() == ["big.wav"])
    }

    /// SIGHUP (a closed terminal), SIGQUIT and the user signals end a render as cleanly as SIGINT.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGVTALRM, SIGPWR, 40])
    func interruptRemovesTheTemporaryFileAndKeepsTheOldOne(signal: Int32) throws {
        let dir = TemporaryDirectory("signal")
        let out = dir.file("long.flac")
        let existing = Data("the old file".utf8)
        FileManager.default.createFile(atPath: out, contents: existing)
        // Interrupted once the render has created its temporary file.
        let (sawTemporary, status) = try runMedrender(["--preset", "box-breath", "--minutes", "600", "-o", out], signal: signal,
                                                      whenFileIn: dir.path, startsWith: ".long.flac.medrender-")
        #expect(sawTemporary, "the render writes through a temporary file beside the target")
        #expect(status == 128 + signal, "130 for SIGINT, 143 for SIGTERM: 128 + the signal")
        #expect(FileManager.default.contents(atPath: out) == existing)
        #expect(dir.contents() == ["long.flac"])
    }
}

/// Every command's --help gives the exit codes, as the README does.
@Test(arguments: [[], ["render"], ["build"], ["validate"], ["cues"], ["inspect"], ["preview"], ["plot"]])
func helpListsTheExitCodes(command: [String]) throws {
    let result = try runMedrender(command + ["--help"])
    #expect(result.status == 0)
    let text = result.stdout.replacingOccurrences(of: "\n", with: " ")
    for code in ["64 usage", "66 missing input", "73 cannot create output", "74 I/O error", "130 interrupted"] {
        #expect(text.contains(code), "medrender \(command.joined()) --help gives \(code)")
    }
    let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
    for code in ["64", "65", "66", "73", "74", "130 / 143"] { #expect(readme.contains("| \(code) |"), "README lists \(code)") }
}

@Suite struct LoudnessTests {
    /// ffmpeg's ebur128 filter, an independent meter: integrated loudness and true peak.
    static func ffmpegLoudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let ffmpeg = try #require(which("ffmpeg"))
        let result = try runProcess(ffmpeg, ["-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"])
        let lines = result.stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func value(after key: String) -> Double? {
            guard let line = lines.last(where: { $0.hasPrefix(key) }) else { return nil }
            return Double(line.dropFirst(key.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return (try #require(value(after: "I:")), try #require(value(after: "Peak:")))
    }

    @Test(arguments: [-16.0, -18.0, -23.0])
    func integratedLoudnessIsOnTargetAndTruePeakUnderTheCeiling(target: Double) throws {
        let dir = TemporaryDirectory("loudness")
        let out = dir.file("s.wav")
        // Without its recorded prompts, so the whole mix is levelled (`MixBalanceTests` holds the voice).
        let result = try runMedrender(["--preset", "box-breath", "--no-voice", "--minutes", "2", "--loudness", String(target),
                                       "--bits", "24", "-o", out, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let (integrated, truePeak) = try Self.ffmpegLoudness(out)
        // ±0.5 LU, as the target promises; true peak at or under -1 dBTP (0.1 dB for the meters' differences).
        #expect(abs(integrated - target) <= 0.5, "measured \(integrated) LUFS for a \(target) LUFS target")
        #expect(truePeak <= -1 + 0.1, "true peak \(truePeak) dBTP")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        for key in ["loudnessLUFS", "loudnessRangeLU", "truePeakDBTP", "gainDecibels", "frames", "durationSeconds"] {
            #expect(report[key] != nil, "the report has \(key)")
        }
        #expect((report["frames"] as! NSNumber).int64Value == 2 * 60 * 48000)
        #expect(!result.stderr.contains("warning"), "on target, no warning: \(result.stderr)")
    }

    /// Cues alone are all peaks: the ceiling keeps them well under a loud target, and the user is told.
    @Test func targetTheCeilingForbidsIsAWarning() throws {
        let dir = TemporaryDirectory("ceiling")
        let out = dir.file("c.wav")
        let result = try runMedrender(["--preset", "coherent", "--cycles", "2", "--layers", "cues", "--loudness", "-6",
                                       "--rate", "8000", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let warning = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("medrender: warning:") })
        #expect(warning.contains("under the target -6.0 LUFS"), "\(warning)")
        #expect(warning.contains("lower the loudness target or raise the ceiling"), "\(warning)")
        let (integrated, truePeak) = try Self.ffmpegLoudness(out)
        #expect(integrated < -7, "ffmpeg agrees it is under the target: \(integrated) LUFS")
        #expect(truePeak <= -1 + 0.1, "true peak \(truePeak) dBTP")
    }

    /// Cues at -60 dB are under the meter's -70 LUFS gate: nothing to raise, and the user is told.
    @Test func aMixTooQuietToMeasureIsAWarning() throws {
        let dir = TemporaryDirectory("quiet")
        let preset = dir.write("q.yaml", """
            pattern: 4-0-4-0
            settle: 2
            closing: 2
            cues:
              inhale: { tone: pure, gain: -60, length: 0.1 }
              exhale: { tone: pure, gain: -60, length: 0.1 }
            master: { loudness: -5 }
            """)
        let result = try runMedrender(["--preset", preset, "--cycles", "2", "--rate", "8000", "-o", dir.file("q.wav"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("medrender: warning: the mix is below -70 LUFS, too quiet to measure"), "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((report["warnings"] as? [String])?.count == 1)
        #expect((report["gainDecibels"] as? NSNumber)?.doubleValue == 0)
    }

    /// At low rates the peaks between samples lie further from them: the limiter and the meter
    /// oversample to the same spacing as ffmpeg's meter (which upsamples to 192 kHz), so the
    /// ceiling holds as ffmpeg reads it, and the report agrees with it.
    @Test(arguments: [8000, 16000, 22050])
    func ceilingHoldsAtLowRates(rate: Int) throws {
        let dir = TemporaryDirectory("lowrate")
        let out = dir.file("s.wav")
        let result = try runMedrender(["--preset", "box-breath", "--minutes", "1", "--loudness", "-10", "--rate", String(rate),
                                       "--bits", "24", "-o", out, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let (_, truePeak) = try Self.ffmpegLoudness(out)
        #expect(truePeak <= -1.0, "true peak \(truePeak) dBTP at \(rate) Hz")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let reported = try #require((report["truePeakDBTP"] as? NSNumber)?.doubleValue)
        #expect(abs(reported - truePeak) <= 0.1, "the report says \(reported) dBTP, ffmpeg \(truePeak)")
    }

    /// A lossy file holds the ceiling and the target as it decodes (ffmpeg decodes it), and the
    /// report gives the figures of the file as written.
    /// (Opus decodes at 48 kHz whatever it was encoded from, and is measured so.)
    @Test(arguments: [("ogg", 8000), ("ogg", 16000), ("ogg", 48000), ("mp3", 8000), ("mp3", 16000), ("mp3", 48000),
                      ("opus", 8000), ("opus", 16000), ("opus", 48000)])
    func lossyFilesHoldAsTheyDecode(format: String, rate: Int) throws {
        let dir = TemporaryDirectory("lossy")
        let out = dir.file("s.\(format)")
        let result = try runMedrender(["--preset", "box-breath", "--no-voice", "--minutes", "1", "--loudness", "-12", "--rate", String(rate),
                                       "-o", out, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let (integrated, truePeak) = try Self.ffmpegLoudness(out)
        #expect(truePeak <= -1.0, "\(format) at \(rate) Hz decodes to a true peak of \(truePeak) dBTP")
        #expect(abs(integrated - -12) <= 0.5, "\(format) at \(rate) Hz decodes to \(integrated) LUFS")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let reportedPeak = try #require((report["truePeakDBTP"] as? NSNumber)?.doubleValue)
        let reportedLoudness = try #require((report["loudnessLUFS"] as? NSNumber)?.doubleValue)
        #expect(abs(reportedPeak - truePeak) <= 0.2, "the report says \(reportedPeak) dBTP, ffmpeg \(truePeak)")
        // Opus from 8 kHz: the report and ffmpeg (which prints 0.1 LU steps) came 0.33 LU apart on
        // box-breath's generated rain, the one case over 0.3.
        let agreement = format == "opus" && rate == 8000 ? 0.4 : 0.3
        #expect(abs(reportedLoudness - integrated) <= agreement, "the report says \(reportedLoudness) LUFS, ffmpeg \(integrated)")
    }

    /// Near 0 dBTP a 16-bit decode of an MP3 clips no sample.
    @Test func aHotMP3DecodesWithoutClipping() throws {
        let dir = TemporaryDirectory("hotmp3")
        let out = dir.file("x.mp3")
        let result = try runMedrender(["--preset", "box-breath", "--minutes", "2", "--loudness", "-14", "--true-peak", "-0.1", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let pcm = dir.file("x.raw")
        let ffmpeg = try #require(which("ffmpeg"))
        #expect(try runProcess(ffmpeg, ["-v", "error", "-i", out, "-f", "s16le", pcm]).status == 0)
        let data = try #require(FileManager.default.contents(atPath: pcm))
        let clipped = data.withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).filter { $0 == .max || $0 == .min }.count }
        #expect(data.count > 100_000)
        #expect(clipped == 0, "\(clipped) samples clip")
    }

    @Test func lowerCeilingIsKept() throws {
        let dir = TemporaryDirectory("ceiling")
        let out = dir.file("s.flac")
        let result = try runMedrender(["--preset", "coherent", "--minutes", "2", "--loudness", "-14", "--true-peak", "-3",
                                       "--bits", "24", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let (_, truePeak) = try Self.ffmpegLoudness(out)
        #expect(truePeak <= -3 + 0.1, "true peak \(truePeak) dBTP")
    }
}

@Suite struct BreathCommandTests {
    @Test(arguments: [
        (["--preset", "relax-4-6", "--inhale", "5.5"], 65, "must be at least 1 s longer than the inhale"),
        (["--preset", "relax-4-6", "--exhale", "13"], 65, "exhale of 13 s is outside this preset's 2–12 s"),
        (["--preset", "relax-4-6", "--pattern", "4-0-4-0"], 65, "make the exhale at least 5 s"),
        (["--preset", "box-breath", "--pattern", "4-4"], 64, "is not a pattern"),
        (["--preset", "box-breath", "--pattern", "4-a-4-4"], 64, "'a' in '4-a-4-4' is not a number"),
        (["--preset", "box-breath", "--pattern", "4--4-4-4"], 64, "is not a number"),
        (["--preset", "box-breath", "--pattern", "4-4-301-4"], 64, "each phase must be 0 to 300 s"),
        (["--preset", "box-breath", "--inhale", "-2"], 64, "--inhale -2.0 is out of range"),
        (["--preset", "box-breath", "--pattern", "0.2-0-0.3-0"], 65, "a cycle must last at least 1 s"),
        (["--preset", "box-breath", "--minutes", "1441"], 64, "up to 1440"),
        (["--preset", "box-breath", "--cycles", "10000"], 65, "24 h"),
        (["--preset", "wind-down", "--minutes", "0.1"], 65, "too short"),
    ] as [([String], Int32, String)])
    func overridesAreCheckedAgainstThePresetAndGlobalLimits(arguments: [String], code: Int32, message: String) throws {
        let dir = TemporaryDirectory("override")
        let result = try runMedrender(["cues"] + arguments + ["-o", dir.file("c.json")])
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(dir.contents().isEmpty)
    }

    @Test func overridesChangeTheSchedule() throws {
        let dir = TemporaryDirectory("override-ok")
        let result = try runMedrender(["cues", "--preset", "relax-4-6", "--inhale", "3", "--exhale", "7", "--cycles", "3",
                                       "--rate", "8000", "-o", dir.file("c.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: dir.file("c.json")))) as! [String: Any]
        let frames = (json["cues"] as! [[String: Any]]).map { ($0["frame"] as! NSNumber).intValue }
        // Settle 20 s, then 3 + 7 s cycles at 8000 Hz.
        #expect(frames == [160_000, 184_000, 240_000, 264_000, 320_000, 344_000])
        let pattern = try runMedrender(["cues", "--preset", "box-breath", "--pattern", "4.7-0.3-6.3-1.1", "--cycles", "1",
                                        "--rate", "22050", "-o", dir.file("p.json")])
        #expect(pattern.status == 0, "\(pattern.stderr)")
        let p = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: dir.file("p.json")))) as! [String: Any]
        #expect((p["cues"] as! [[String: Any]]).map { ($0["frame"] as! NSNumber).intValue } == [441_000, 544_635, 551_250, 690_165])
    }

    @Test func cueSheetsComeAsWebVTTAndAudacityLabels() throws {
        let dir = TemporaryDirectory("sheets")
        for ext in ["vtt", "txt"] {
            let result = try runMedrender(["cues", "--preset", "four-seven-eight", "--cycles", "2", "-o", dir.file("s.\(ext)")])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let vtt = try String(contentsOfFile: dir.file("s.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n"))
        #expect(vtt.contains("00:00:20.000 --> 00:00:24.000\nBreathe in\n"))
        #expect(vtt.contains("00:00:24.000 --> 00:00:31.000\nHold\n"))
        #expect(vtt.contains("00:00:31.000 --> 00:00:39.000\nBreathe out\n"))
        let labels = try String(contentsOfFile: dir.file("s.txt"), encoding: .utf8).split(separator: "\n")
        #expect(labels.contains("20.000000\t24.000000\tBreathe in (1)"))
        #expect(labels.contains("39.000000\t43.000000\tBreathe in (2)"))
        #expect(labels.contains("20.000000\t20.000000\tBreathing"))
        let bad = try runMedrender(["cues", "--preset", "coherent", "-o", dir.file("s.pdf")])
        #expect(bad.status == 64)

        // At 11025 Hz a cue's sample is not on a whole millisecond: the label gives the sample's time.
        for ext in ["json", "txt"] {
            let result = try runMedrender(["cues", "--pattern", "4.7-0.3-6.3-1.1", "--preset", "coherent", "--cycles", "2",
                                           "--rate", "11025", "-o", dir.file("r.\(ext)")])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("r.json")))) as? [String: Any])
        let frames = (json["cues"] as! [[String: Any]]).map { ($0["frame"] as! NSNumber).int64Value }
        let starts = try String(contentsOfFile: dir.file("r.txt"), encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("(") }.map { Double($0.split(separator: "\t")[0])! }
        #expect(starts.count == frames.count)
        for (start, frame) in zip(starts, frames) {
            #expect(abs(start - Double(frame) / 11025) < 0.6e-6, "label at \(start) s, cue on frame \(frame)")
        }
    }

    @Test func aDayLongSheetIsWhole() throws {
        let dir = TemporaryDirectory("day")
        let result = try runMedrender(["cues", "--preset", "coherent", "--minutes", "1440", "--rate", "192000", "-o", dir.file("d.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: dir.file("d.json")))) as! [String: Any]
        let cues = json["cues"] as! [[String: Any]]
        // (86400 − 50) / 11 = 7850 whole cycles; the last exhale at 20 + 7849 × 11 + 5.5 s.
        #expect(json["cycles"] as? Int == 7850)
        #expect(cues.count == 15700)
        #expect((cues.last!["frame"] as! NSNumber).int64Value == Int64(20 + 7849 * 11) * 192_000 + 5 * 192_000 + 96_000)
        #expect((json["frames"] as! NSNumber).int64Value == 86400 * 192_000)
    }
}

/// `cues -o -` writes the sheet to standard output: JSON, or the format `--format` names; the
/// same text as the file.
@Suite struct CuesToStandardOutputTests {
    @Test(arguments: [("json", "{\"rate\""), ("vtt", "WEBVTT"), ("txt", "\t")])
    func theSheetGoesToStandardOutput(format: String, start: String) throws {
        let dir = TemporaryDirectory("cuesout")
        let piped = try runMedrender(["cues", "--preset", "coherent", "--minutes", "2", "-o", "-", "--format", format])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains(start))
        let file = dir.file("sheet.\(format)")
        #expect(try runMedrender(["cues", "--preset", "coherent", "--minutes", "2", "-o", file]).status == 0)
        #expect(piped.stdout == (try String(contentsOfFile: file, encoding: .utf8)))
        #expect(dir.contents() == ["sheet.\(format)"])
    }

    @Test func jsonUnlessToldAndAClashIsAUsageError() throws {
        let plain = try runMedrender(["cues", "--preset", "coherent", "--minutes", "2", "-o", "-"])
        #expect(plain.status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) is [String: Any])
        let clash = try runMedrender(["cues", "--preset", "coherent", "-o", "x.json", "--format", "vtt"])
        #expect(clash.status == 64)
        #expect(clash.stderr.contains("make them agree"), "\(clash.stderr)")
        let bad = try runMedrender(["cues", "--preset", "coherent", "-o", "-", "--format", "srt"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("The value 'srt' is invalid for '--format <format>'. Please provide one of 'json', 'vtt' or 'txt'."), "\(bad.stderr)")
    }
}
