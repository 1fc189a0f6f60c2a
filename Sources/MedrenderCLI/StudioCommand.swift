import ArgumentParser
import Foundation
import Logging
import MedrenderPresets
import MedrenderServer

/// `medrender studio`: the studio page, served on loopback, its address printed.
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Write a session in the browser: serve the studio on loopback and print its address.",
        discussion: """
            The studio edits a preset in a form and as YAML, shows its timeline and breathing circle as \
            you type, plays it from any point of the timeline, downloads the YAML and, with \
            --presets-dir, saves it into that folder, where it is a preset of the library from then on \
            (listed in Start from, and rendered by name). With --library, a library of your own is in \
            front of the stock one, as for every command. It is `medrender serve` on 127.0.0.1 with the \
            page at /studio; stop it with Ctrl-C.
            """)

    @Option(name: .long, help: "The port to listen on; 0 (the default) takes a free one.")
    var port = 0

    @Option(name: .customLong("presets-dir"), help: "The folder the studio saves presets into (none: saving is off).")
    var presetsDirectory: String?

    @Option(name: .customLong("cache-dir"), help: "The render cache's folder (default: medrender-render-cache-UID in the temporary folder).")
    var cacheDirectory: String?

    @OptionGroup var speech: SpeechOptions

    @OptionGroup var libraries: LibraryOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): give 0 to 65535") }
        if let presetsDirectory { _ = try checkedPresetsDirectory(presetsDirectory) }
    }

    func run() throws {
        let library = try PresetLibrary.required().adding(front: libraries.folders)
        var settings = MedrenderService.Settings(library: library)
        settings.host = "127.0.0.1"
        settings.port = port
        if let cacheDirectory { settings.cacheFolder = cacheDirectory }
        settings.presetsDirectory = try presetsDirectory.map(checkedPresetsDirectory)
        settings.speechTimeLimitSeconds = speech.timeLimitSeconds
        try runService(settings, logLevel: .warning) { port in
            try? Console.output("http://127.0.0.1:\(port)/studio\n")
            Console.error("medrender: the studio is on http://127.0.0.1:\(port)/studio; stop it with Ctrl-C\n")
        }
    }
}

/// `--presets-dir`: an existing folder, as its real path (so a save can never be led elsewhere).
func checkedPresetsDirectory(_ path: String) throws -> String {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
        throw ValidationError("--presets-dir \(path): no such folder; create it, or give an existing one")
    }
    guard FileManager.default.isWritableFile(atPath: path) else {
        throw ValidationError("--presets-dir \(path): the folder cannot be written; check its permissions")
    }
    return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
}
