import Foundation
import MedrenderCore

/// What a preset that arrived in a request may name: no program (a `command` voice), and no file
/// outside the library's folders. A preset posted to the server is untrusted data; one of the
/// server's own libraries may name a `command` voice only when the operator allows it.
///
/// A path outside the folders gets the same answer whether or not a file is there, so the answer
/// tells a client nothing of the server's files.
public struct PresetConfinement: Sendable {
    /// The folders a preset's files must resolve into, each real (links resolved) and ending in `/`.
    public let folders: [String]
    /// Whether a `command` voice may be named (only for presets of the server's own libraries).
    public let allowsCommandVoices: Bool

    /// The `Sounds/` and `Presets/` folders of each of `library`'s roots, and `extraFolders` (the
    /// studio's save folder).
    public init(library: PresetLibrary, extraFolders: [String] = [], allowsCommandVoices: Bool) {
        let all = library.roots.flatMap { [$0 + "/Sounds", $0 + "/Presets"] } + extraFolders
        folders = all.map { Self.real($0) + "/" }
        self.allowsCommandVoices = allowsCommandVoices
    }

    /// The path with its links resolved, as far as they exist, and `.`/`..` taken out.
    static func real(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether `path` (absolute) lies inside one of the folders.
    public func contains(path: String) -> Bool {
        let resolved = Self.real(path)
        return folders.contains { resolved.hasPrefix($0) }
    }

    /// Refuses the first thing of `session` that a request may not name; `presetFile` is where the
    /// preset stands (its relative sounds are found beside it). The error names the field as the
    /// preset does, and for a path says only that it is outside the library.
    public func check(_ session: Session, presetFile: String, library: PresetLibrary) throws(PresetError) {
        try checkVoices(session, presetFile: presetFile)
        for ref in session.soundsUsed where !isInside(ref, presetFile: presetFile, library: library) {
            throw PresetError(file: presetFile, field: "sound", message: "the sound '\(ref.name)' is outside the library; name a sound "
                + "of the library's Sounds/ by name, such as 'rain'", category: .usage)
        }
        if let cover = session.metadata.cover, !contains(path: cover) {
            throw PresetError(file: presetFile, field: "metadata.cover", message: "the cover '\(URL(fileURLWithPath: cover).lastPathComponent)' "
                + "is outside the library; put the image in the library's Sounds/ or Presets/ folder and name it from there",
                category: .usage)
        }
    }

    /// Refuses a `command` voice among the script's choices (unless allowed) and a Piper model
    /// given by a path outside the folders; a Piper voice by name is found in the server's own
    /// voice folders, and is fine.
    func checkVoices(_ session: Session, presetFile: String) throws(PresetError) {
        let location = session.guide?.voiceLocation
        func refuse(_ message: String) -> PresetError {
            PresetError(file: location?.file ?? presetFile, field: "guide.voice", line: location?.line, column: location?.column,
                        message: message, category: .usage)
        }
        for voice in session.guide?.choices ?? [] {
            if !allowsCommandVoices, voice.engine == .command {
                throw refuse("the 'command' engine runs a program, which this server does not do for a preset it is "
                    + "given; choose festival, espeak-ng, flite or piper")
            }
            if voice.engine == .piper, let name = voice.name, GuideVoice.isModelPath(name),
               name.hasPrefix("~") || name.split(separator: "/").contains("..") || !contains(path: name) {
                throw refuse("the Piper model '\(URL(fileURLWithPath: name).lastPathComponent)' is outside the library; put it in the "
                    + "library's Presets/ or Sounds/ folder and name it from there, or name an installed voice (piper:en_US-joe-medium)")
            }
        }
    }

    /// Whether a sound's name keeps inside the folders: no absolute path, no `..`, no `~`, and,
    /// when it names a file, that file's real path inside.
    func isInside(_ ref: SoundRef, presetFile: String, library: PresetLibrary) -> Bool {
        let name = ref.name
        if name.hasPrefix("/") || name.hasPrefix("~") || name.split(separator: "/").contains("..") { return false }
        guard let path = library.soundPath(ref, presetFile: presetFile) else { return true }  // missing: said as missing
        return contains(path: path)
    }
}
