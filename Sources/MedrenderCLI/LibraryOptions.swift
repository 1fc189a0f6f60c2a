import ArgumentParser
import Foundation
import MedrenderPresets

/// `--library DIR` (repeatable): a teacher's library, its `Presets/`, `Sounds/` and `Languages/` searched before
/// the stock ones (and before `$MEDRENDER_HOME`'s).
struct LibraryOptions: ParsableArguments {
    @Option(name: .customLong("library"), help: ArgumentHelp(
        "A library of your own (a folder with Presets/, Sounds/ and/or Languages/), searched before the stock one; repeatable, the first first.",
        valueName: "dir"), completion: .directory)
    var folders: [String] = []

    func validate() throws {
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--library \(folder): no such folder; give a folder holding Presets/, Sounds/ and/or Languages/")
            }
            guard ["Presets", "Sounds", "Languages"].contains(where: { FileManager.default.fileExists(atPath: folder + "/" + $0) }) else {
                throw ValidationError("--library \(folder): holds none of Presets/, Sounds/, Languages/; give the folder that holds them")
            }
        }
    }

    /// The stock library (or `$MEDRENDER_HOME`'s) with these folders in front.
    func library() -> PresetLibrary {
        let found = PresetLibrary.locate() ?? PresetLibrary(root: FileManager.default.currentDirectoryPath)
        return found.adding(front: folders)
    }
}
