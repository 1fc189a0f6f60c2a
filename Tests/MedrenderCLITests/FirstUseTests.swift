import Foundation
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// What a new user tries first: the version, a stems folder that is not there yet.
@Suite struct FirstUseTests {
    /// `--version` answers at the root, though the default command (render) needs `--preset`.
    @Test(arguments: [["--version"], ["render", "--version"]])
    func versionIsPrinted(arguments: [String]) throws {
        let result = try runMedrender(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == LibraryBuild.rendererVersion, "\(result.stdout)")
        #expect(!result.stderr.contains("--preset"), "\(result.stderr)")
    }

    /// `--stems` makes its folder and the missing ones above it, as `build -o` does.
    @Test func stemsFolderIsCreatedWithItsParents() throws {
        let dir = TemporaryDirectory("stemsdir")
        let stems = dir.file("a/b/stems")
        let result = try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "8000", "--layers", "cues,bells",
                                       "-o", dir.file("mix.wav"), "--stems", stems])
        #expect(result.status == 0, "\(result.stderr)")
        let made = ((try? FileManager.default.contentsOfDirectory(atPath: stems)) ?? []).sorted()
        #expect(made == ["mix-bells.wav", "mix-cues.wav"], "\(made)")
    }

    /// A render that fails removes the folders it made for the stems; a file in the way is 73.
    @Test func failedRenderLeavesNoStemsFolderAndAFileInTheWayIs73() throws {
        let dir = TemporaryDirectory("stemsfail")
        let bad = dir.write("bad.yaml", "pattern: 4-0-4-0\nambience: [no-such-sound]\n")
        let failed = try runMedrender(["--preset", bad, "--cycles", "1", "-o", dir.file("mix.wav"), "--stems", dir.file("x/stems")])
        #expect(failed.status == 66, "\(failed.stderr)")
        #expect(dir.contents() == ["bad.yaml"])
        dir.write("file", "not a folder")
        let blocked = try runMedrender(["--preset", "box-breath", "--cycles", "1", "-o", dir.file("mix.wav"),
                                        "--stems", dir.file("file/stems")])
        #expect(blocked.status == 73, "\(blocked.stderr)")
        #expect(blocked.stderr.contains("is a file, not a folder"), "\(blocked.stderr)")
        #expect(dir.contents() == ["bad.yaml", "file"])
    }
}
