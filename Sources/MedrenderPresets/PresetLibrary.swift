import Foundation
import MedrenderCore
import Yams

/// Finds presets and sounds: by name in the library folders, or by path.
///
/// A teacher's own libraries (`front`, from `$MEDRENDER_HOME` or `--library`) are searched before
/// the stock one (`root`): a preset or sound of theirs shadows the stock one of the same name, and
/// the stock library stays there for everything else.
public struct PresetLibrary: Sendable {
    /// The folder holding the stock `Presets/` and `Sounds/`.
    public var root: String
    /// Folders holding a teacher's `Presets/` and `Sounds/` (either may be missing), searched
    /// before `root`, first to last.
    public var front: [String] = []
    /// A folder of presets alone (the studio's saves, `--presets-dir`), searched before every
    /// library's `Presets/`.
    public var savedPresets: String?

    public init(root: String) { self.root = root }

    public init(root: String, front: [String]) {
        self.root = root
        self.front = front
    }

    /// Every library folder, in the order names are looked up: the teacher's, then the stock one.
    public var roots: [String] { front + [root] }

    /// Every folder presets are looked up in, in order: the saved presets', then each library's
    /// `Presets/`.
    public var presetFolders: [String] { (savedPresets.map { [$0] } ?? []) + roots.map { $0 + "/Presets" } }

    /// Where a preset file comes from, for `presets`: `stock`, or the teacher's library folder.
    public func origin(ofPreset file: String) -> String {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
        for base in front where URL(fileURLWithPath: base + "/Presets").standardizedFileURL.path == folder { return base }
        return "stock"
    }

    public var presetsFolder: String { root + "/Presets" }
    public var soundsFolder: String { root + "/Sounds" }

    /// The folder of the running executable, symlinks resolved: `/proc/self/exe`, so a program run
    /// from `$PATH` or through a symlink finds the library beside its real file; else `argv[0]`
    /// looked up on `$PATH`.
    public static func executableFolder() -> URL {
        let fm = FileManager.default
        if let real = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe"), real.hasPrefix("/") {
            return URL(fileURLWithPath: real).deletingLastPathComponent()
        }
        var path = CommandLine.arguments.first ?? ""
        if !path.contains("/") {
            let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            if let dir = dirs.first(where: { fm.isExecutableFile(atPath: "\($0)/\(path)") }) { path = "\(dir)/\(path)" }
        }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The library next to the program or in the current folder: `$MEDRENDER_HOME`, then the
    /// current folder, then `../share/medrender` beside the real executable (where `make install`
    /// puts it), then the folders above the executable (a build in a checkout).
    public static func locate() -> PresetLibrary? {
        let fm = FileManager.default
        func isLibrary(_ dir: String) -> Bool {
            var d: ObjCBool = false
            return fm.fileExists(atPath: dir + "/Presets", isDirectory: &d) && d.boolValue
        }
        func stock() -> String? {
            let cwd = fm.currentDirectoryPath
            if isLibrary(cwd) { return cwd }
            var dir = executableFolder()
            let share = dir.appendingPathComponent("../share/medrender").standardized.path
            if isLibrary(share) { return share }
            for _ in 0..<6 {
                if isLibrary(dir.path) { return dir.path }
                dir = dir.deletingLastPathComponent()
            }
            return nil
        }
        // $MEDRENDER_HOME is a teacher's library, in front of the stock one when there is one.
        if let home = ProcessInfo.processInfo.environment["MEDRENDER_HOME"], !home.isEmpty {
            guard isLibrary(home) || fm.fileExists(atPath: home + "/Sounds") || fm.fileExists(atPath: home + "/Languages") else {
                return PresetLibrary(root: home)
            }
            guard let stock = stock(), Self.same(stock, home) == false else { return PresetLibrary(root: home) }
            return PresetLibrary(root: stock, front: [home])
        }
        return stock().map { PresetLibrary(root: $0) }
    }

    /// `library` with `folders` (a teacher's libraries, `--library DIR`) in front, first to last.
    public func adding(front folders: [String]) -> PresetLibrary {
        var library = self
        library.front = folders.filter { folder in !roots.contains { Self.same($0, folder) } } + front
        return library
    }

    static func same(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath().path
            == URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether `root` holds a `Presets/` folder.
    public var isPresent: Bool {
        var d: ObjCBool = false
        return FileManager.default.fileExists(atPath: presetsFolder, isDirectory: &d) && d.boolValue
    }

    /// Why there is no library to use, and how to point at one.
    public var absenceMessage: String {
        if let home = ProcessInfo.processInfo.environment["MEDRENDER_HOME"], !home.isEmpty {
            return "MEDRENDER_HOME=\(home) holds no Presets/ folder; set it to the folder holding Presets/ and Sounds/"
        }
        let exe = Self.executableFolder()
        let share = exe.appendingPathComponent("../share/medrender").standardized.path
        return "no preset library found (a folder holding Presets/ and Sounds/, looked for in the current folder, in \(share) "
            + "and in \(exe.path) and the folders above it); run from it, install it with 'make install', "
            + "or set MEDRENDER_HOME to it"
    }

    /// The library, or an error (66) saying where it was looked for and how to point at one.
    public static func required() throws(PresetError) -> PresetLibrary {
        let found = locate()
        if let found, found.isPresent { return found }
        throw PresetError(file: "", message: (found ?? PresetLibrary(root: ".")).absenceMessage, category: .missingInput)
    }

    /// Every preset file in the library, sorted by name; a teacher's preset shadows a stock one of
    /// the same name.
    public func presetFiles() -> [String] {
        var byName: [String: String] = [:]
        for folder in presetFolders.reversed() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names where Self.isPresetFileName(name) {
                byName[URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent] = folder + "/" + name
            }
        }
        return byName.keys.sorted().map { byName[$0]! }
    }

    /// Whether a file in a presets folder is a preset: a `.yaml` or `.yml` file that is not the
    /// credits file of a sound beside it (`creek.credits.yaml`).
    public static func isPresetFileName(_ name: String) -> Bool {
        (name.hasSuffix(".yaml") || name.hasSuffix(".yml")) && !name.hasSuffix(".credits.yaml") && !name.hasSuffix(".credits.yml")
    }

    /// The preset names the library offers.
    public func presetNames() -> [String] {
        presetFiles().map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
    }

    /// The file for `nameOrPath`: a path when it has a slash or a YAML extension, else a name
    /// from `Presets/`.
    public func presetPath(_ nameOrPath: String) throws(PresetError) -> String {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") || nameOrPath.hasSuffix(".yml") {
            return nameOrPath
        }
        for folder in presetFolders {
            for ext in ["yaml", "yml"] {
                let candidate = "\(folder)/\(nameOrPath).\(ext)"
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
            }
        }
        guard isPresent else {
            throw PresetError(file: nameOrPath, message: "no preset of that name, and " + absenceMessage + " (or give a path to a .yaml file)",
                              category: .missingInput)
        }
        let names = presetNames()
        var message = "no preset named '\(nameOrPath)'"
        if let guess = didYouMean(nameOrPath, among: names) { message += " (did you mean '\(guess)'?)" }
        message += "; Presets: \(names.joined(separator: ", ")) (or give a path to a .yaml file)"
        throw PresetError(file: nameOrPath, message: message, category: .missingInput)
    }

    static let soundExtensions = ["ogg", "opus", "flac", "wav", "mp3", "aiff", "aif", "m4a", "aac", "mp4", "m4b"]

    /// The sound names `Sounds/` offers.
    public func soundNames() -> [String] {
        var result = Set<String>()
        for base in roots {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: base + "/Sounds")) ?? []
            for name in names where Self.soundExtensions.contains(URL(fileURLWithPath: name).pathExtension.lowercased()) {
                result.insert(URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent)
            }
        }
        return result.sorted()
    }

    /// The `Sounds/` folder of the library that holds the file at `path`, or nil for a sound from
    /// elsewhere.
    func soundsFolder(holding path: String) -> String? {
        let folder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
        return roots.map { $0 + "/Sounds" }.first { URL(fileURLWithPath: $0).standardizedFileURL.path == folder }
    }

    /// Resolves a sound a preset names: a path (relative to the preset's folder), or a name in `Sounds/`.
    public func soundPath(_ ref: SoundRef, presetFile: String?) -> String? {
        let fm = FileManager.default
        let name = ref.name
        var candidates: [String] = []
        if name.hasPrefix("/") {
            candidates.append(name)
        } else {
            if let presetFile {
                let dir = URL(fileURLWithPath: presetFile).deletingLastPathComponent().path
                candidates.append(dir + "/" + name)
            }
            for base in roots {
                let sounds = base + "/Sounds"
                candidates.append(sounds + "/" + name)
                for ext in Self.soundExtensions { candidates.append("\(sounds)/\(name).\(ext)") }
            }
        }
        return candidates.first { path in
            var d: ObjCBool = false
            return fm.fileExists(atPath: path, isDirectory: &d) && !d.boolValue
        }
    }

    /// What `Sounds/CREDITS.yaml` says of a sound.
    public enum Credit: Equatable, Sendable {
        case listed(author: String, license: String)
        /// A sound from outside `Sounds/`: the library does not speak for it.
        case outsideLibrary
        /// A sound in `Sounds/` whose credit cannot be given, and why.
        case unknown(String)
    }

    /// Whether `Sounds/CREDITS.yaml` says the sound already loops at its own length
    /// (`loop: natural`), so a bed plays it whole, without a crossfaded seam.
    public func loopsNaturally(soundAt path: String) -> Bool {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        guard let sounds = soundsFolder(holding: path),
            let text = try? String(contentsOfFile: sounds + "/CREDITS.yaml", encoding: .utf8),
            let root = try? PresetNode.compose(text), let entry = root[file.lastPathComponent]
        else { return false }
        return entry["loop"]?.string == "natural"
    }

    /// The credits file beside a sound, when there is one: `NAME.credits.yaml` for `NAME.ogg`
    /// (or `NAME.ogg.credits.yaml`), holding the sound's `author` and `license` as an entry of
    /// `Sounds/CREDITS.yaml` does.
    public func creditsFile(forSoundAt path: String) -> String? {
        let file = URL(fileURLWithPath: path)
        let candidates = [path + ".credits.yaml", file.deletingPathExtension().path + ".credits.yaml"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Who made a sound and under what license: from the credits file beside it
    /// (`NAME.credits.yaml`), else, for a sound in `Sounds/`, from `Sounds/CREDITS.yaml`.
    public func credit(forSoundAt path: String) -> Credit {
        if let beside = creditsFile(forSoundAt: path) {
            let fields = "\(beside) should hold the sound's author and license, as 'author: NAME' and 'license: SPDX-ID' lines"
            guard let text = try? String(contentsOfFile: beside, encoding: .utf8) else { return .unknown("\(beside) cannot be read") }
            guard let root = try? PresetNode.compose(text), root.mapping != nil else { return .unknown("\(beside) is not YAML; " + fields) }
            guard let author = root["author"]?.string, let license = root["license"]?.string else { return .unknown(fields) }
            return .listed(author: author, license: license)
        }
        let file = URL(fileURLWithPath: path).standardizedFileURL
        guard let sounds = soundsFolder(holding: path) else { return .outsideLibrary }
        let credits = sounds + "/CREDITS.yaml"
        guard let text = try? String(contentsOfFile: credits, encoding: .utf8) else {
            return .unknown("\(credits) is missing or unreadable")
        }
        guard let root = try? PresetNode.compose(text), root.mapping != nil else {
            return .unknown("\(credits) is not a YAML mapping of sound file names to author and license")
        }
        guard let entry = root[file.lastPathComponent], let author = entry["author"]?.string, let license = entry["license"]?.string else {
            return .unknown("\(credits) gives no author and license for \(file.lastPathComponent)")
        }
        return .listed(author: author, license: license)
    }
}
