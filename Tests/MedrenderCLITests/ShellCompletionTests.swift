import Foundation
import MedrenderTestSupport
import Testing

/// zsh and fish complete what bash does: preset names, formats, layers, sounds and files, and a
/// line that starts with an option (`medrender --preset b<TAB>`) completes as `render`, the
/// default command, does: a preset's name, not `build`.
@Suite struct ShellCompletionTests {
    static var presetNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Presets")) ?? [])
            .filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".credits.yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func starting(_ prefix: String, _ list: [String]) -> [String] { list.filter { $0.hasPrefix(prefix) }.sorted() }

    /// The generated script for `shell`, written to a file.
    static func script(_ shell: String, dir: TemporaryDirectory) throws -> String {
        let generated = try runMedrender(["--generate-completion-script", shell])
        #expect(generated.status == 0, "\(generated.stderr)")
        return dir.write("medrender.\(shell)", generated.stdout)
    }

    /// The environment with the built medrender first on PATH, as an installed one would be.
    static var path: [String: String] {
        ["PATH": URL(fileURLWithPath: PackagePaths.executable).deletingLastPathComponent().path + ":/usr/bin:/bin"]
    }

    /// What fish offers for `line` (its own `complete -C`), the first field of each line.
    static func fish(_ line: String, script: String, in folder: String = PackagePaths.root) throws -> [String] {
        let result = try runProcess(which("fish")!, ["-c", "source $argv[1]; complete -C $argv[2]", script, line], in: folder, environment: path)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }

    @Test(.enabled(if: which("fish") != nil, "needs fish"))
    func fishCompletesPresetsFormatsLayersSoundsAndFiles() throws {
        let dir = TemporaryDirectory("fish")
        let script = try Self.script("fish", dir: dir)
        let names = Self.presetNames
        #expect(!Self.starting("b", names).isEmpty)
        #expect(try Self.fish("medrender --preset b", script: script).sorted() == Self.starting("b", names))
        #expect(try Self.fish("medrender render --preset co", script: script).sorted() == Self.starting("co", names))
        #expect(try Self.fish("medrender cues --preset s", script: script).sorted() == Self.starting("s", names))
        #expect(try Self.fish("medrender --format ", script: script) == ["ogg", "wav", "flac", "opus", "mp3"])
        #expect(try Self.fish("medrender --preset box-breath --layers voice", script: script).contains("voice,ambience"))
        #expect(try Self.fish("medrender --ambience r", script: script) == ["rain"])
        // Files: the output's, by its extensions, in the folder completed in.
        dir.write("take.ogg", "")
        dir.write("notes.txt", "")
        let files = try Self.fish("medrender --preset box-breath -o ", script: script, in: dir.path)
        #expect(files.contains("take.ogg") && !files.contains("notes.txt"), "\(files)")
        // Subcommands are still offered where a command goes.
        #expect(try Self.fish("medrender b", script: script).contains("build"))
    }

    /// zsh's completion system needs a terminal; this drives the generated `_medrender` with
    /// `_arguments`, `_describe` and `_files` standing in, each saying what it would offer, the
    /// option's action (the program's own completions) run as zsh runs it.
    static let zshDriver = #"""
source "$2"
_arguments() {
  local prev="${words[CURRENT-1]}" spec rest action
  for spec in "$@"; do
    if [[ "$spec" == (\(*\)|)(\*|)${prev}\[* ]]; then
      rest="${spec#*\]:}"; action="${rest#*:}"
      if [[ "$action" == \{*\} ]]; then eval "${action[2,-2]}"; else eval "$action"; fi
      return 0
    fi
  done
  # The top level: the command's name at the second word, else the rest is the command's (`*::`).
  if (( CURRENT == 2 )); then state=command; else state=arg; words=("${(@)words[2,-1]}"); (( CURRENT-- )); fi
  return 0
}
_describe() { local -a list; local item; list=("${(@P)3}"); for item in "${list[@]}"; do print -r -- "OFFER ${item%%:*}"; done; return 0 }
_files() { print -r -- "FILES $*"; return 0 }
__medrender_complete() { print -rl -- "OFFER ${^@}"; }
LBUFFER="$1"
words=(${(z)1}); [[ "$1" == *" " ]] && words+=("")
CURRENT=${#words}
PREFIX="${words[CURRENT]}"
_medrender
"""#

    static func zsh(_ line: String, script: String, dir: TemporaryDirectory) throws -> [String] {
        let driver = dir.write("driver.zsh", zshDriver)
        let result = try runProcess(which("zsh")!, ["-f", driver, line, script], in: PackagePaths.root, environment: path)
        let offers = result.stdout.split(separator: "\n").map(String.init)
        #expect(!result.stderr.contains("parse error"), "\(result.stderr)")
        let prefix = line.hasSuffix(" ") ? "" : String(line.split(separator: " ").last ?? "")
        return offers.compactMap { $0.hasPrefix("OFFER ") ? String($0.dropFirst(6)) : $0.hasPrefix("FILES ") ? $0 : nil }
            .filter { $0.hasPrefix("FILES ") || $0.hasPrefix(prefix) }
    }

    @Test(.enabled(if: which("zsh") != nil, "needs zsh"))
    func zshCompletesPresetsFormatsLayersSoundsAndFiles() throws {
        let dir = TemporaryDirectory("zsh")
        let script = try Self.script("zsh", dir: dir)
        let names = Self.presetNames
        #expect(try Self.zsh("medrender --preset b", script: script, dir: dir).sorted() == Self.starting("b", names))
        #expect(try Self.zsh("medrender render --preset co", script: script, dir: dir).sorted() == Self.starting("co", names))
        #expect(try Self.zsh("medrender cues --preset s", script: script, dir: dir).sorted() == Self.starting("s", names))
        #expect(try Self.zsh("medrender --format ", script: script, dir: dir) == ["ogg", "wav", "flac", "opus", "mp3"])
        #expect(try Self.zsh("medrender --layers voice", script: script, dir: dir) == ["voice", "voice,ambience"])
        #expect(try Self.zsh("medrender --ambience r", script: script, dir: dir) == ["rain"])
        #expect(try Self.zsh("medrender --preset box-breath -o ", script: script, dir: dir) == ["FILES -g *.ogg *.wav *.flac *.opus *.mp3 *.m4a"])
        #expect(try Self.zsh("medrender b", script: script, dir: dir) == ["build"])
    }
}
