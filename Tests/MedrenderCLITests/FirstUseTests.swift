import Foundation
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// What a new user tries first.
@Suite struct FirstUseTests {
    /// `--version` answers at the root, though the default command (render) needs `--preset`.
    @Test(arguments: [["--version"], ["render", "--version"]])
    func versionIsPrinted(arguments: [String]) throws {
        let result = try runMedrender(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == LibraryBuild.rendererVersion, "\(result.stdout)")
        #expect(!result.stderr.contains("--preset"), "\(result.stderr)")
    }
}
