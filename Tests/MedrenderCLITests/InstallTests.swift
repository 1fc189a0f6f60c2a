import Foundation
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// `make install` and a program run from `$PATH`: the library is found beside the real executable.
@Suite struct InstallTests {
    /// `make install` into a DESTDIR, then the program run from `$PATH` through a symlink, in
    /// another folder: it finds the library in `../share/medrender` beside its real file.
    @Test func installedProgramRunFromPathFindsItsLibrary() throws {
        let dir = TemporaryDirectory("install")
        let make = try #require(which("make"))
        let install = try runProcess(make, ["-s", "install-files", "BIN=\(PackagePaths.executable)", "DESTDIR=\(dir.file("dest"))",
                                            "PREFIX=/usr"], in: PackagePaths.root)
        #expect(install.status == 0, "\(install.stderr)")
        let prefix = dir.file("dest/usr")
        for file in ["bin/medrender", "bin/medrender-media", "share/medrender/Presets/box-breath.yaml", "share/medrender/Sounds/CREDITS.yaml",
                     "share/medrender/Sounds/rain.ogg", "share/man/man1/medrender.1", "share/medrender/LICENSE",
                     "share/medrender/NOTICE", "share/medrender/Sounds/LICENSES/CC0-1.0.txt",
                     "share/medrender/Sounds/LICENSES/festvox-us-slt-hts.txt"] {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file) installed")
        }
        for file in ["bash-completion/completions/medrender", "zsh/site-functions/_medrender", "fish/vendor_completions.d/medrender.fish"] {
            let script = (try? String(contentsOfFile: "\(prefix)/share/\(file)", encoding: .utf8)) ?? ""
            #expect(script.contains("presets") && script.contains("minutes"), "\(file) completes the commands and options")
        }
        let bin = dir.file("bin"), elsewhere = dir.file("elsewhere")
        for folder in [bin, elsewhere] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: bin + "/medrender", withDestinationPath: prefix + "/bin/medrender")
        let environment = ["PATH": bin + ":/usr/bin:/bin", "MEDRENDER_HOME": ""]
        let list = try runProcess("/bin/sh", ["-c", "medrender presets"], in: elsewhere, environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("box-breath "), "\(list.stdout)")
        let render = try runProcess("/bin/sh", ["-c", "medrender --preset box-breath --cycles 1 --rate 8000 -o s.ogg"],
                                    in: elsewhere, environment: environment)
        #expect(render.status == 0, "the sounds are found in share/medrender/Sounds: \(render.stderr)")
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/s.ogg"))
    }

    /// Without a library anywhere, the error says where it looked, `share/medrender` included.
    @Test func missingLibraryNamesTheShareFolder() throws {
        let dir = TemporaryDirectory("nolib")
        let bin = dir.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: PackagePaths.executable, toPath: bin + "/medrender")
        let result = try runProcess(bin + "/medrender", ["presets"], in: dir.path, environment: ["MEDRENDER_HOME": ""])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("\(dir.path)/share/medrender"), "\(result.stderr)")
        #expect(result.stderr.contains("make install"), "\(result.stderr)")
    }

    /// The man page gives the version `--version` prints.
    @Test func manPageHasTheVersion() throws {
        let page = try String(contentsOfFile: PackagePaths.root + "/man/medrender.1", encoding: .utf8)
        #expect(page.hasPrefix(".TH MEDRENDER 1 ") && page.split(separator: "\n")[0].contains("\"medrender \(LibraryBuild.rendererVersion)\""))
    }

    /// A symlink on `$PATH` to the build in a checkout finds the checkout's library from any folder.
    @Test func symlinkToACheckoutsBuildFindsItsLibrary() throws {
        let dir = TemporaryDirectory("symlink")
        let bin = dir.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/medrender", withDestinationPath: PackagePaths.executable)
        let result = try runProcess("/bin/sh", ["-c", "medrender presets --json"], in: dir.path,
                                    environment: ["PATH": bin + ":/usr/bin:/bin", "MEDRENDER_HOME": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"box-breath\""), "\(result.stdout)")
    }
}
