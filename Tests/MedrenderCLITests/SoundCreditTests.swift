import Foundation
import MedrenderTestSupport
import Testing

/// Sounds a preset names: every missing one reported at once, and own sounds credited.
@Suite struct SoundCreditTests {
    /// Several missing sounds are named in one error (`PresetLibrary.resolveSounds`; the library
    /// level is `RenderJobTests.everyMissingSoundIsNamedAtOnce`), by every command that reads sounds.
    @Test(arguments: [["validate"], ["render"], ["cues"]])
    func everyMissingSoundIsNamedInOneError(command: [String]) throws {
        let dir = TemporaryDirectory("missing")
        let preset = dir.write("p.yaml", "pattern: 4-0-4-0\nambience: [rian, oshen]\nbells: { start: bel }\n")
        let arguments = command == ["validate"] ? ["validate", preset]
            : command + ["--preset", preset, "--cycles", "1", "-o", dir.file(command == ["cues"] ? "c.json" : "s.ogg")]
        let result = try runMedrender(arguments)
        #expect(result.status == 66, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(result.stderr)")
        for name in ["'rian' (did you mean 'rain'?)", "'oshen'", "'bel' (did you mean 'bell'?)"] {
            #expect(result.stderr.contains(name), "\(result.stderr)")
        }
        #expect(dir.contents() == ["p.yaml"])
    }

    /// A sound of one's own is credited by a `NAME.credits.yaml` beside it, or by the preset's
    /// `credits:`; a credits file without the fields is a warning that says what to write.
    @Test func ownSoundsAreCreditedFromBesideThemOrFromThePreset() throws {
        let dir = TemporaryDirectory("owncredits")
        for (own, stock) in [("my-rain.ogg", "rain.ogg"), ("my-bell.ogg", "bell.ogg"), ("my-sea.ogg", "ocean.ogg")] {
            try FileManager.default.copyItem(atPath: PackagePaths.root + "/Sounds/" + stock, toPath: dir.file(own))
        }
        dir.write("my-rain.credits.yaml", "author: Jane Doe\nlicense: CC-BY-4.0\n")
        dir.write("my-sea.ogg.credits.yaml", "author: [oops\n")
        dir.write("p.yaml", """
            pattern: 4-0-4-0
            settle: 2
            closing: 2
            ambience: { beds: [my-rain.ogg, my-sea.ogg], crossfade: 1 }
            bells: { start: my-bell.ogg }
            credits:
              my-bell.ogg: { author: Sam Roe, license: CC0-1.0 }

            """)
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", "8000", "-o", dir.file("s.wav")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("my-sea.ogg.credits.yaml is not YAML") && result.stderr.contains("'author: NAME'"), "\(result.stderr)")
        let inspect = try runMedrender(["inspect", "--json", dir.file("s.wav")])
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        let credits = (report["tags"] as? [String: String])?["copyright"] ?? ""
        #expect(credits.contains("my-rain.ogg: Jane Doe, CC-BY-4.0"), "\(credits)")
        #expect(credits.contains("my-bell.ogg: Sam Roe, CC0-1.0"), "\(credits)")
        #expect(credits.contains("my-sea.ogg: credits not known"), "\(credits)")

        dir.write("q.yaml", "pattern: 4-0-4-0\nambience: [my-rain.ogg]\ncredits: { my-rian.ogg: { author: A, license: B } }\n")
        let misspelt = try runMedrender(["validate", dir.file("q.yaml")])
        #expect(misspelt.status == 65, "\(misspelt.stderr)")
        #expect(misspelt.stderr.contains("q.yaml:3:12: credits.my-rian.ogg: unknown key 'my-rian.ogg'; did you mean 'my-rain.ogg'?"),
                "\(misspelt.stderr)")
    }

    /// A build renders an output again when the credits file of a sound it plays appears or
    /// changes (the credits are tags in the file), and not otherwise.
    @Test func buildRendersAgainWhenASoundsCreditsFileChanges() throws {
        let dir = TemporaryDirectory("buildcredits")
        let presets = dir.file("presets"), out = dir.file("out")
        try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: PackagePaths.root + "/Sounds/rain.ogg", toPath: presets + "/creek.ogg")
        try "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [creek.ogg]\n".write(toFile: presets + "/own.yaml", atomically: true, encoding: .utf8)
        func build() throws -> [String] {
            let result = try runMedrender(["build", "--json", presets, "-o", out, "--cycles", "1", "--rate", "8000"])
            #expect(result.status == 0, "\(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return summary?["rendered"] as? [String] ?? []
        }
        #expect(try build() == ["own-1cycles.ogg"])
        #expect(try build().isEmpty)
        try "author: Jane Doe\nlicense: CC-BY-4.0\n".write(toFile: presets + "/creek.credits.yaml", atomically: true, encoding: .utf8)
        #expect(try build() == ["own-1cycles.ogg"], "a credits file that appears")
        #expect(try build().isEmpty)
        try "author: Jane Roe\nlicense: CC-BY-4.0\n".write(toFile: presets + "/creek.credits.yaml", atomically: true, encoding: .utf8)
        #expect(try build() == ["own-1cycles.ogg"], "a credits file that changes")
        let inspect = try runMedrender(["inspect", "--json", out + "/own-1cycles.ogg"])
        #expect(inspect.stdout.contains("creek.ogg: Jane Roe, CC-BY-4.0"), "\(inspect.stdout)")
    }
}
