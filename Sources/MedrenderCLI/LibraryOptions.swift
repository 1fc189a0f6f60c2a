import ArgumentParser
import Foundation
import MedrenderPresets

/// `--library DIR` (repeatable): a teacher's library, its `Presets/` and `Sounds/` searched before
/// the stock ones (and before `$MEDRENDER_HOME`'s).
struct LibraryOptions: ParsableArguments {
    @Option(name: .customLong("library"), help: ArgumentHelp(
        "A library of your own (a folder with Presets/ and/or Sounds/), searched before the stock one; repeatable, the first first.",
        valueName: "dir"), completion: .directory)
    var folders: [String] = []

    func validate() throws {
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--library \(folder): no such folder; give a folder holding Presets/ and/or Sounds/")
            }
            guard FileManager.default.fileExists(atPath: folder + "/Presets") || FileManager.default.fileExists(atPath: folder + "/Sounds") else {
                throw ValidationError("--library \(folder): holds neither Presets/ nor Sounds/; give the folder that holds them")
            }
        }
    }

    /// The stock library (or `$MEDRENDER_HOME`'s) with these folders in front.
    func library() -> PresetLibrary {
        let found = PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)
        return found.adding(front: folders)
    }
}
