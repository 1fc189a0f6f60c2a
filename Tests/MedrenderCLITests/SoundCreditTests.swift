import Foundation
import MedrenderTestSupport
import Testing

/// Sounds a preset names: every missing one reported at once.
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
}
