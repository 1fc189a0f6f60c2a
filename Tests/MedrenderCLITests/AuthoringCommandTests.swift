import Foundation
import MedrenderTestSupport
import Testing

/// `cues` says what `render` says and writes where `render` writes; an interrupted render leaves
/// no folder it made.
@Suite struct AuthoringCommandTests {
    /// Wind-down at one minute has no room for its last segment: `cues` warns as a render does.
    @Test func cuesWarnsOfWhatTheFitLeftOut() throws {
        let dir = TemporaryDirectory("cues-warn")
        let result = try runMedrender(["cues", "--preset", "wind-down", "--minutes", "1", "-o", dir.file("s.json")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("medrender: warning: ") && result.stderr.contains("Relax: left out"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("s.json")))
    }

    /// `/dev/null`, a FIFO and `/dev/stdout` (a pipe) are written into, as `render` writes into them.
    @Test func cuesWritesIntoDevicesPipesAndStandardOutput() throws {
        let dir = TemporaryDirectory("cues-streams")
        let null = try runMedrender(["cues", "--preset", "box-breath", "--minutes", "2", "-o", "/dev/null", "--format", "json"])
        #expect(null.status == 0, "\(null.stderr)")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR)

        let fifo = dir.file("sheet.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let exe = PackagePaths.executable
        let piped = try runProcess("/bin/sh", ["-c", """
            cat '\(fifo)' > '\(dir.file("read.vtt"))' & reader=$!
            '\(exe)' cues --preset box-breath --minutes 2 -o '\(fifo)' --format vtt; code=$?
            wait $reader; exit $code
            """], in: PackagePaths.root, killAfter: 120)
        #expect(piped.status == 0, "\(piped.stderr)")
        let vtt = try String(contentsOfFile: dir.file("read.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT"))
        #expect(stat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)

        let out = try runProcess("/bin/sh", ["-c", "'\(exe)' cues --preset box-breath --minutes 2 -o /dev/stdout --format json | cat"],
                                 in: PackagePaths.root, killAfter: 120)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("{\"rate\": "), "\(out.stdout.prefix(80))")
        #expect(!out.stderr.contains("error"), "\(out.stderr)")
    }

    /// SIGINT and SIGTERM in the middle of a render remove the `--stems` folders it made, as an
    /// ordinary failure does.
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedRenderRemovesTheStemsFoldersItMade(signal: Int32) throws {
        let dir = TemporaryDirectory("stems-interrupt")
        let stems = dir.file("made/stems")
        let (sawFile, status) = try runMedrender(
            ["--preset", "box-breath", "--minutes", "180", "--rate", "8000", "-o", dir.file("out.wav"), "--stems", stems],
            signal: signal, whenFileIn: stems, startsWith: ".")
        #expect(sawFile, "no stem was being written")
        #expect(status == 128 + signal)
        #expect(!FileManager.default.fileExists(atPath: dir.file("made")), "\(dir.contents())")
        #expect(dir.contents().isEmpty, "\(dir.contents())")
    }

    /// `validate --minutes M` checks the session at that length and says what the fit changed;
    /// at the preset's own length an explicit closing is kept and nothing is said.
    @Test func validateChecksALengthAndSaysWhatTheFitChanged() throws {
        let dir = TemporaryDirectory("validate-minutes")
        let file = dir.write("sit.yaml", "minutes: 15\npattern: 4-0-6-0\nsettle: 10\nclosing: 600\n")
        let own = try runMedrender(["validate", file])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout.contains("ok, 29 cycles in 00:15:00"), "\(own.stdout)")
        #expect(own.stderr.isEmpty, "\(own.stderr)")

        let short = try runMedrender(["validate", file, "--minutes", "6"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stdout.contains("in 00:06:00"), "\(short.stdout)")
        #expect(short.stderr.contains("medrender: note: \(file): the 6 min session is shorter than the preset's 15 min: settle 10 → 2 s"),
                "\(short.stderr)")

        let tooShort = try runMedrender(["validate", file, "--minutes", "0.1"])
        #expect(tooShort.status == 65, "\(tooShort.stderr)")
        let bad = try runMedrender(["validate", file, "--minutes", "0"])
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("--minutes 0.0 is out of range"), "\(bad.stderr)")
    }
}

/// `medrender presets NAME` and the session overrides on the command line.
@Suite struct PresetShowAndOverrideCommandTests {
    /// Coherent breathing has no holds and no top-up: its detail lists the two cues it plays.
    @Test func presetsNameListsOnlyTheCuesThePatternPlays() throws {
        let shown = try runMedrender(["presets", "coherent", "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let cues = try #require(summary["cues"] as? [String])
        #expect(cues.map { $0.prefix { $0 != ":" } } == ["inhale", "exhale"], "\(cues)")
        // A 4-7-8 pattern holds in, and its hold cue is listed.
        let holding = try runMedrender(["presets", "guided-sleep-478", "--json"])
        #expect(holding.stdout.contains("hold-in:"), "\(holding.stdout)")
    }

    @Test func presetsNameShowsOnePresetWithItsRamps() throws {
        let dir = TemporaryDirectory("presets-show")
        let file = dir.write("ramp.yaml", "description: Slower.\nminutes: 8\npattern: 4-0-4-0\nramp: { to: 4-0-8-0, cycles: 6 }\nclosing: 45\n")
        let result = try runMedrender(["presets", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("ramp (\(file))\nSlower.\n"), "\(result.stdout)")
        #expect(result.stdout.contains("breathing  4-0-4-0 → 4-0-8-0 over 6 cycles, then held until the closing"), "\(result.stdout)")
        #expect(result.stdout.contains("closing    at least 45 s"), "\(result.stdout)")
        let stock = try runMedrender(["presets", "extended-exhale", "--json"])
        #expect(stock.status == 0, "\(stock.stderr)")
        #expect(stock.stdout.contains("4-0-4-0 → 4-0-8-0 over 10 min (ease-in-out), then held until the closing"), "\(stock.stdout)")
        let missing = try runMedrender(["presets", "no-such-preset"])
        #expect(missing.status == 66, "\(missing.stderr)")
        // The list gives a ramp's start and end, not its start alone.
        let list = try runMedrender(["presets"])
        let line = list.stdout.split(separator: "\n").first { $0.hasPrefix("extended-exhale ") }
        #expect(line?.contains("4-0-4-0 to 4-0-8-0") == true, "\(list.stdout)")
    }

    /// `--settle`, `--closing`, `--no-voice` and `--bells none` change what the cue sheet holds.
    @Test func overridesShapeTheSession() throws {
        let dir = TemporaryDirectory("overrides")
        let result = try runMedrender(["cues", "--preset", "box-breath", "--minutes", "15", "--settle", "5", "--closing", "120",
                                       "--no-voice", "--bells", "none", "-o", dir.file("s.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("s.json")))) as! [String: Any]
        let events = try #require(json["events"] as? [[String: Any]])
        #expect(Set(events.map { $0["type"] as! String }) == ["section"])
        let sections = events.map { ($0["name"] as! String, ($0["seconds"] as! NSNumber).doubleValue) }
        #expect(sections.first { $0.0 == "Breathing" }?.1 == 5)
        let closing = try #require(sections.first { $0.0 == "Closing" }?.1)
        #expect(closing <= 900 - 120 && closing > 900 - 120 - 16)
        let bad = try runMedrender(["cues", "--preset", "box-breath", "--seed", "-1", "-o", dir.file("t.json")])
        #expect(bad.status == 64 && bad.stderr.contains("--seed"), "\(bad.stderr)")
    }
}

/// `medrender new NAME [--from PRESET]`: a commented preset that validates, never over a file.
@Suite struct NewPresetCommandTests {
    @Test func newWritesACommentedPresetThatValidates() throws {
        let dir = TemporaryDirectory("new-preset")
        let made = try runMedrender(["new", "evening-calm"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: dir.file("evening-calm.yaml"), encoding: .utf8)
        #expect(text.hasPrefix("# evening-calm: a medrender preset."))
        #expect(text.contains("\nname: evening-calm\n") && text.contains("\n# The default length"))
        let check = try runMedrender(["validate", dir.file("evening-calm.yaml")])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("ok, "), "\(check.stdout)")

        // Never over a file already there.
        let again = try runMedrender(["new", "evening-calm"], in: dir.path)
        #expect(again.status == 73, "\(again.stderr)")
        #expect(again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try String(contentsOfFile: dir.file("evening-calm.yaml"), encoding: .utf8) == text)

        let bad = try runMedrender(["new", "a b"], in: dir.path)
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    @Test func theTemplateSaysWhichSideOfALineItsPauseAndRestAreOnAndItsScriptDecodes() throws {
        let dir = TemporaryDirectory("new-preset-guide")
        let made = try runMedrender(["new", "spoken"], in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: dir.file("spoken.yaml"), encoding: .utf8)
        let prose = text.split(separator: "\n").filter { $0.hasPrefix("# ") }.map { $0.dropFirst(2) }.joined(separator: " ")
        #expect(prose.contains("'pause' is the silence before a line"), "\(prose)")
        #expect(prose.contains("'rest' is the silence after it"), "\(prose)")
        // Its script, taken out of its comments, is a preset's: 'rest' decodes beside 'pause'.
        var lines = text.components(separatedBy: "\n")
        var index = try #require(lines.firstIndex(of: "# guide:"))
        while index < lines.count, lines[index].hasPrefix("# ") {
            lines[index].removeFirst(2)
            index += 1
        }
        #expect(lines.contains("      rest: { min: 10, weight: 1 }"))
        let shown = try runMedrender(["presets", dir.write("spoken-guided.yaml", lines.joined(separator: "\n"))])
        #expect(shown.status == 0, "\(shown.stderr)")
    }

    @Test func newFromAPresetKeepsItsSessionUnderTheNewName() throws {
        let dir = TemporaryDirectory("new-from")
        let made = try runMedrender(["new", "my-sleep", "--from", "sleep", "-o", dir.file("mine.yaml")])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: dir.file("mine.yaml"), encoding: .utf8)
        #expect(text.hasPrefix("# my-sleep: started from the preset sleep."))
        #expect(text.contains("\nname: my-sleep\n") && !text.contains("\nname: sleep\n"))
        #expect(text.contains("pattern: 4-7-8-0"))
        let shown = try runMedrender(["presets", dir.file("mine.yaml")])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("breathing  4-7-8-0 until the closing"), "\(shown.stdout)")
        let missing = try runMedrender(["new", "x", "--from", "no-such-preset", "-o", dir.file("x.yaml")])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.yaml")))
    }
}

/// A teacher's library beside the stock one: `--library DIR` or `$MEDRENDER_HOME`.
@Suite struct TeacherLibraryTests {
    /// A library with a preset that shadows a stock one and one of its own that uses a sound of
    /// its own beside a stock sound.
    static func teacherLibrary(_ dir: TemporaryDirectory) throws -> String {
        let root = dir.file("teacher")
        for folder in ["Presets", "Sounds"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: PackagePaths.root + "/Sounds/bell.ogg", toPath: root + "/Sounds/chime.ogg")
        try "chime.ogg: { author: A Teacher, license: CC0-1.0 }\n".write(toFile: root + "/Sounds/CREDITS.yaml", atomically: true, encoding: .utf8)
        try "description: The teacher's box.\nminutes: 5\npattern: 3-3-3-3\n"
            .write(toFile: root + "/Presets/box-breath.yaml", atomically: true, encoding: .utf8)
        try "description: Mine.\nminutes: 5\npattern: 4-0-6-0\nbells: { start: chime }\nambience: [rain]\n"
            .write(toFile: root + "/Presets/mine.yaml", atomically: true, encoding: .utf8)
        return root
    }

    @Test func aTeachersLibraryStandsInFrontOfTheStockOne() throws {
        let dir = TemporaryDirectory("teacher")
        let root = try Self.teacherLibrary(dir)
        for (arguments, environment) in [(["presets", "--library", root], [String: String]()), (["presets"], ["MEDRENDER_HOME": root])] {
            let list = try runProcess(PackagePaths.executable, arguments, in: PackagePaths.root, environment: environment)
            #expect(list.status == 0, "\(list.stderr)")
            let lines = list.stdout.split(separator: "\n").map(String.init)
            let box = try #require(lines.first { $0.hasPrefix("box-breath ") })
            #expect(box.contains("3-3-3-3") && box.hasSuffix("[\(root)]"), "\(box)")
            #expect(lines.contains { $0.hasPrefix("mine ") && $0.hasSuffix("[\(root)]") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("coherent ") && $0.hasSuffix("[stock]") }, "\(lines)")
            #expect(lines.filter { $0.hasPrefix("box-breath ") }.count == 1)
        }
        let json = try runMedrender(["presets", "--json", "--library", root])
        let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
        #expect(entries.first { $0["name"] as? String == "mine" }?["origin"] as? String == root)
        #expect(entries.first { $0["name"] as? String == "sleep" }?["origin"] as? String == "stock")

        // Its preset renders with its own sound and a stock one, credited from its own CREDITS.yaml.
        let out = dir.file("mine.wav")
        let render = try runMedrender(["--preset", "mine", "--library", root, "--cycles", "1", "--rate", "8000", "-o", out])
        #expect(render.status == 0, "\(render.stderr)")
        let inspect = try runMedrender(["inspect", "--json", out])
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        let credits = (report["tags"] as! [String: String])["copyright"] ?? ""
        #expect(credits.contains("chime.ogg") && credits.contains("A Teacher") && credits.contains("rain.ogg"), "\(credits)")

        let missing = try runMedrender(["presets", "--library", dir.file("nowhere")])
        #expect(missing.status == 64, "\(missing.stderr)")
    }

    /// `build --library DIR` builds the teacher's presets by name, with the teacher's sounds;
    /// without it the name is unknown.
    @Test func buildTakesATeachersLibrary() throws {
        let dir = TemporaryDirectory("teacher-build")
        let root = try Self.teacherLibrary(dir)
        let out = dir.file("dist")
        let built = try runMedrender(["build", "--library", root, "mine", "-o", out, "--minutes", "1", "--rate", "8000"])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/mine-1min.ogg"), "\(built.stderr)")
        let plan = try runMedrender(["build", "--library", root, "-o", dir.file("all"), "--dry-run", "--minutes", "1"])
        #expect(plan.stdout.contains("mine-1min.ogg") && plan.stdout.contains("coherent-1min.ogg"), "\(plan.stdout)")
        let without = try runMedrender(["build", "mine", "-o", dir.file("none"), "--minutes", "1", "--rate", "8000"])
        #expect(without.status != 0 && without.stderr.contains("mine"), "\(without.stderr)")
        let missing = try runMedrender(["build", "--library", dir.file("nowhere"), "mine", "-o", dir.file("none")])
        #expect(missing.status == 64, "\(missing.stderr)")
    }
}

/// `build --dry-run` says what would render and each shard's share, and writes nothing.
@Suite struct BuildDryRunTests {
    @Test func aDryRunListsTheOutputsAndTheShardsShares() throws {
        let dir = TemporaryDirectory("dry-run")
        let out = dir.file("dist")
        let result = try runMedrender(["build", "-o", out, "--dry-run", "--shard", "2/4", "--minutes", "1,2", "Presets/box-breath.yaml",
                                       "Presets/sleep.yaml", "Presets/coherent.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "a dry run made the output folder")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("shard 1/4: ") } && lines.contains { $0.hasPrefix("shard 4/4: ") }, "\(lines)")
        // Only shard 2's outputs are listed, each to be rendered.
        let listed = lines.filter { $0.contains("  shard ") }
        #expect(!listed.isEmpty && listed.allSatisfy { $0.contains("shard 2/4  would render") }, "\(listed)")
        #expect(lines.last == "\(listed.count) would render, 0 up to date", "\(lines)")

        // After a real build of one output, the dry run says it is up to date.
        let built = try runMedrender(["build", "-o", out, "--minutes", "1", "--rate", "8000", "Presets/coherent.yaml"])
        #expect(built.status == 0, "\(built.stderr)")
        let again = try runMedrender(["build", "-o", out, "--dry-run", "--minutes", "1,2", "--rate", "8000", "Presets/coherent.yaml"])
        #expect(again.stdout.contains("coherent-1min.ogg  00:01:00.000  up to date"), "\(again.stdout)")
        #expect(again.stdout.contains("coherent-2min.ogg  00:02:00.000  would render"), "\(again.stdout)")
        #expect(again.stdout.hasSuffix("1 would render, 1 up to date\n"), "\(again.stdout)")
    }
}

/// The install is current: the man page documents every subcommand and every option `--help` lists.
@Suite struct ManPageTests {
    @Test func theManPageDocumentsEveryCommandAndOptionOfHelp() throws {
        let page = try String(contentsOfFile: PackagePaths.root + "/man/medrender.1", encoding: .utf8)
        let top = try runMedrender(["--help"])
        #expect(top.status == 0)
        // The subcommands, as the top-level help lists them.
        let lines = top.stdout.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("SUBCOMMANDS:") })
        let commands = lines[(start + 1)...].prefix { !$0.isEmpty }.filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "help" }
        #expect(commands.count >= 10, "\(commands)")
        let sections = page.components(separatedBy: "\n.SS medrender ")
        for command in commands {
            let section = try #require(sections.first { $0.hasPrefix(command + "\n") }, "no section for \(command)")
            let help = try runMedrender([command, "--help"])
            #expect(help.status == 0, "\(command): \(help.stderr)")
            // Every long option the help shows, in that command's section.
            let tokens = help.stdout.split { " \n,[]()<>|".contains($0) }.map(String.init)
            let options = Set(tokens.filter { $0.hasPrefix("--") && $0.dropFirst(2).first?.isLetter == true }
                .map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "-" }) })
                .subtracting(["--help", "--version", "--experimental-dump-help"])
            // A command with options of its own (a line of its help that starts with one) finds them.
            let ownOptionLines = help.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("  --") && !$0.hasPrefix("  --version") }
            #expect(!options.isEmpty || ownOptionLines.isEmpty, "\(command): no options read from its help")
            for option in options where help.stdout.contains("  \(option)") {
                #expect(section.contains(option.replacingOccurrences(of: "-", with: "\\-")), "\(command) \(option) is not in the man page")
            }
        }
    }
}

/// The bash completions complete preset names, formats, layers and sounds, and a line that starts
/// with an option completes as `render` does.
@Suite struct CompletionTests {
    /// What bash offers for `line`, with the completion script sourced.
    static func complete(_ line: String, script: String) throws -> [String] {
        let driver = """
            source '\(script)'
            COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
            _medrender "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try runProcess("/bin/bash", ["-c", driver, "bash", PackagePaths.executable + " " + line], in: PackagePaths.root)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesPresetsFormatsLayersAndSounds() throws {
        let dir = TemporaryDirectory("completion")
        let generated = try runMedrender(["--generate-completion-script", "bash"])
        #expect(generated.status == 0)
        let script = dir.write("medrender.bash", generated.stdout)
        // `medrender --preset b<TAB>` offers the presets, not the build command: the library's
        // names that start so, and nothing else.
        let names = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Presets")
            .filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".credits.yaml") }.map { String($0.dropLast(5)) }
        func starting(_ prefix: String) -> [String] { names.filter { $0.hasPrefix(prefix) }.sorted() }
        #expect(starting("b").contains("box-breath") && starting("co").contains("coherent"))
        #expect(try Self.complete("--preset b", script: script).sorted() == starting("b"))
        #expect(try Self.complete("render --preset co", script: script).sorted() == starting("co"))
        #expect(try Self.complete("cues --preset s", script: script).sorted() == starting("s"))
        #expect(try Self.complete("b", script: script) == ["build"])
        #expect(try Self.complete("--preset box-breath --format o", script: script) == ["ogg", "opus"])
        #expect(try Self.complete("--preset box-breath --layers ", script: script).contains("ambience"))
        #expect(try Self.complete("--preset box-breath --ambience o", script: script) == ["ocean"])
    }
}

/// Tags survive in every format: an MP3's ID3 text in UTF-16 where Latin-1 falls short.
@Suite struct UnicodeTagTests {
    @Test(arguments: ["mp3", "ogg", "flac"])
    func unicodeTagsSurvive(format: String) throws {
        guard let ffprobe = which("ffprobe") else { Issue.record("ffprobe is needed (make test installs ffmpeg)"); return }
        let dir = TemporaryDirectory("unicode-tags")
        let out = dir.file("s.\(format)")
        let render = try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "16000", "-o", out,
                                       "--title", "Zoë Åberg ☯", "--artist", "Zoë Åberg", "--album", "呼吸",
                                       "--date", "2026-05-01", "--comment", "in — out ☯"])
        #expect(render.status == 0, "\(render.stderr)")
        // An OGG's comments are its stream's tags, the others' the file's.
        let probe = try runProcess(ffprobe, ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", out])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
        var found: [[String: Any]] = [(json["format"] as? [String: Any]) ?? [:]]
        found += (json["streams"] as? [[String: Any]]) ?? []
        let tags = found.compactMap { $0["tags"] as? [String: String] }.flatMap { $0 }
            .reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        #expect(tags["title"] == "Zoë Åberg ☯", "\(tags)")
        #expect(tags["artist"] == "Zoë Åberg", "\(tags)")
        #expect(tags["album"] == "呼吸", "\(tags)")
        #expect(tags["comment"]?.hasPrefix("in — out ☯") == true, "\(tags)")
        #expect(tags["date"] == "2026-05-01" || tags["date"] == "2026", "\(tags)")
        // The chapters are still there.
        let inspect = try runMedrender(["inspect", "--json", out])
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect((report["chapters"] as? [Any])?.count == 3, "\(inspect.stdout)")
    }
}
