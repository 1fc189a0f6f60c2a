import Foundation
import MedrenderTestSupport
import Testing

/// A German preset as a listener meets it, read by other programs: the chapters (ffprobe), the cue
/// sheet's labels and captions, the preview page; and the speech errors as the command line says
/// them, with their exit codes.
@Suite struct GuidedLanguageTests {
    static func germanPreset(_ dir: TemporaryDirectory) -> String {
        dir.write("de.yaml", """
            name: de
            minutes: 1
            language: de
            pattern: 4-4-4-4
            settle: 12
            closing: 12
            voice: { prompts: spoken, prompt-cycles: 1 }
            guide:
              lines:
                - say: "Willkommen."
                  at: 2
            """)
    }

    static func run(_ arguments: [String], _ dir: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(PackagePaths.executable, arguments, in: PackagePaths.root, environment: ["XDG_CACHE_HOME": dir.file("cache")])
    }

    @Test func aGermanPresetsChaptersLabelsAndPreviewAreGerman() throws {
        let dir = TemporaryDirectory("language-de")
        let preset = Self.germanPreset(dir)
        let render = try Self.run(["--preset", preset, "--rate", "16000", "-o", dir.file("de.ogg")], dir)
        #expect(render.status == 0, "\(render.stderr)")
        // Chapters, as ffmpeg reads the file's CHAPTER comments.
        let probe = try runProcess(try #require(which("ffprobe")), ["-v", "error", "-show_chapters", "-of", "json", dir.file("de.ogg")])
        let chapters = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as! [String: Any]
        let titles = (chapters["chapters"] as! [[String: Any]]).map { ($0["tags"] as? [String: Any])?["title"] as? String }
        #expect(titles == ["Ankommen", "Atmung", "Ausklang"], "\(probe.stdout)")
        // The cue sheet's labels and captions.
        for ext in ["txt", "vtt"] {
            let cues = try Self.run(["cues", "--preset", preset, "-o", dir.file("de.\(ext)")], dir)
            #expect(cues.status == 0, "\(cues.stderr)")
        }
        let labels = try String(contentsOfFile: dir.file("de.txt"), encoding: .utf8)
        for word in ["\tAnkommen\n", "\tAtmung\n", "\tAusklang\n", "\tEinatmen (1)\n", "\tHalten (1)\n", "\tAusatmen (1)\n"] {
            #expect(labels.contains(word), "labels lack \(word.debugDescription)")
        }
        #expect(!labels.contains("Breathe"), "English in the labels")
        let captions = try String(contentsOfFile: dir.file("de.vtt"), encoding: .utf8)
        #expect(captions.contains("\nEinatmen\n") && captions.contains("\nWillkommen.\n"), "\(captions)")
        #expect(!captions.contains("Breathe"))
        // The preview page.
        let preview = try Self.run(["preview", "--preset", preset, "--rate", "16000", "-o", dir.file("de.html")], dir)
        #expect(preview.status == 0, "\(preview.stderr)")
        let page = try String(contentsOfFile: dir.file("de.html"), encoding: .utf8)
        for word in ["<html lang=\"de\">", "<dt>Abschnitt</dt>", "<dt>Zyklus</dt>", "<dt>Vergangen</dt>", "<dt>Verbleibend</dt>",
                     "\"settleLabel\":\"Ankommen\"", "\"closingLabel\":\"Ruhen\"", "\"Einatmen\"", "\"Ausatmen\"", "· Vorschau</title>",
                     "Zeitleiste: zum Springen klicken"] {
            #expect(page.contains(word), "the page lacks \(word)")
        }
        for english in ["<dt>Section</dt>", "Breathe in", "Settle in", "Remaining"] {
            #expect(!page.contains(english), "the page says \(english)")
        }
    }

    @Test(arguments: [
        ("{ engine: espeak-ng, name: xx-nowhere }", 65, "de.yaml:9:10: espeak-ng has no voice 'xx-nowhere'; installed: "),
        ("{ engine: flite, name: nobody }", 65, "de.yaml:9:10: flite has no voice 'nobody'; installed: "),
    ])
    func anUnknownVoiceIsOneLineWithItsExitCode(voice: String, status: Int32, message: String) throws {
        let dir = TemporaryDirectory("language-bad-voice")
        let text = try String(contentsOfFile: Self.germanPreset(dir), encoding: .utf8)
            .replacingOccurrences(of: "guide:\n", with: "guide:\n  voice: \(voice)\n")
        _ = dir.write("de.yaml", text)
        let result = try Self.run(["--preset", dir.file("de.yaml"), "--rate", "16000", "-o", dir.file("de.ogg")], dir)
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("de.ogg")))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir.file("cache/medrender/speech"))) ?? []).isEmpty)
    }

    @Test func anEngineThatIsNotInstalledIsExitCode66NamingItsPackage() throws {
        let dir = TemporaryDirectory("language-no-engine")
        let preset = Self.germanPreset(dir)
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        // No program on PATH: espeak-ng (German's default voice) is not there.
        let result = try runProcess(PackagePaths.executable, ["--preset", preset, "--rate", "16000", "-o", dir.file("de.ogg")],
                                    in: PackagePaths.root, environment: ["XDG_CACHE_HOME": dir.file("cache"), "PATH": dir.file("bin")])
        #expect(result.status == 66)
        #expect(result.stderr.contains("\(preset): the speech engine espeak-ng ('espeak-ng') is not installed; install it: apt-get install espeak-ng"),
                "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("de.ogg")))
    }
}
