import Crypto
import Foundation
import MedrenderCore
import MedrenderIO
import Synchronization

/// One line to speak, resolved: engine, voice, language and text.
public struct SpeechRequest: Hashable, Sendable {
    public var engine: GuideVoice.Engine
    /// The engine's voice (for `command`, the program).
    public var voice: String
    public var language: Language
    public var text: String
    /// The engine's own version (`SpeechEngine.version`): a new engine speaks anew.
    public var engineVersion: String

    public init(engine: GuideVoice.Engine, voice: String, language: Language, text: String, engineVersion: String) {
        self.engine = engine
        self.voice = voice
        self.language = language
        self.text = text
        self.engineVersion = engineVersion
    }

    /// Changes whenever the way speech is made changes, so old cache entries are not reused.
    public static let version = "2"

    /// The cache key: SHA-256 of engine, voice, language, text, the engine's version and ours.
    public var key: String {
        var hasher = SHA256()
        for field in ["medrender-speech", Self.version, engine.rawValue, voice, language.tag, text, engineVersion] {
            hasher.update(data: Array(field.utf8) + [0])
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// Runs the speech engines (the one type in medrender that starts processes), checks what they
/// make, and keeps each line's audio in the cache by its content hash, so a line is synthesized
/// once for every render, build and server that shares the cache.
public struct SpeechSynthesizer: Sendable {
    /// The cache folder: `$XDG_CACHE_HOME/medrender/speech`, or `~/.cache/medrender/speech`.
    public var cacheDirectory: String
    /// Seconds an engine may take to speak one line, above 0, default 120 (`--speech-timeout`);
    /// past it, the engine and everything it started are ended and the line fails.
    public var timeLimitSeconds: Double

    /// The time limit of a line when none is given, in seconds.
    public static let defaultTimeLimitSeconds = 120.0

    public init(cacheDirectory: String? = nil, timeLimitSeconds: Double = defaultTimeLimitSeconds) {
        self.cacheDirectory = cacheDirectory ?? Self.cacheDirectoryOverride ?? Self.defaultCacheDirectory()
        self.timeLimitSeconds = timeLimitSeconds
    }

    /// A cache folder for the work done in a task (a test's own), instead of the user's.
    @TaskLocal public static var cacheDirectoryOverride: String?

    public static func defaultCacheDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return "\(xdg)/medrender/speech" }
        let home = env["HOME"] ?? NSHomeDirectory()
        return "\(home)/.cache/medrender/speech"
    }

    /// Where a request's audio lives in the cache.
    public func cachedPath(_ request: SpeechRequest) -> String { "\(cacheDirectory)/\(request.key).wav" }

    /// The folders programs are looked for in, instead of `PATH`, for the work done in a task
    /// (a test's, to see what happens when an engine is not installed).
    @TaskLocal public static var searchPathOverride: String?

    /// The program's full path on `PATH` (or as given, when it holds a slash), nil when absent.
    static func locate(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = searchPathOverride ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(program)") {
            return "\(dir)/\(program)"
        }
        return nil
    }

    /// The audio of `request`: from the cache, or made now and put in the cache atomically. A
    /// failure leaves nothing in the cache. `place` names the line for messages. The engine runs
    /// for at most `timeLimitSeconds`, in a process group of its own that is ended with it; when
    /// the calling task is cancelled, the engine is ended and this throws `CancellationError`.
    public func audio(for request: SpeechRequest, place: String) throws -> String {
        let final = cachedPath(request)
        if FileManager.default.fileExists(atPath: final) { return final }
        let engine = request.engine.description
        let program = engine.program(voice: request.voice)
        guard let executable = Self.locate(program) else {
            let fix = engine.installHint.map { "install it: \($0)" }
                ?? "give the program's path, executable, as the voice's name"
            throw RenderError("\(place): the speech engine \(request.engine.rawValue) ('\(program)') is not installed; \(fix)",
                              category: .missingInput)
        }
        do {
            try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw RenderError("\(place): cannot create the speech cache \(cacheDirectory) (\(error.localizedDescription)); "
                + "set XDG_CACHE_HOME to a folder you can write", category: .cannotCreate)
        }
        let scratch = "\(cacheDirectory)/.\(request.key)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        let textFile = scratch + ".txt", raw = scratch + ".wav"
        // An interrupt removes them too.
        TemporaryFiles.register(textFile)
        TemporaryFiles.register(raw)
        defer {
            for file in [textFile, raw] {
                try? FileManager.default.removeItem(atPath: file)
                TemporaryFiles.unregister(file)
            }
        }
        guard FileManager.default.createFile(atPath: textFile, contents: Data(request.text.utf8)) else {
            throw RenderError("\(place): cannot write in the speech cache \(cacheDirectory); set XDG_CACHE_HOME to a folder you can write",
                              category: .cannotCreate)
        }
        let lastLine = try speak(request, executable: executable,
                                 arguments: engine.arguments(voice: request.voice, text: request.text, textFile: textFile, output: raw),
                                 place: place)
        // Some engines exit 0 after saying why they spoke nothing (an unknown voice).
        let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else {
            throw RenderError("\(place): \(request.engine.rawValue) ('\(program)') wrote no audio"
                + (lastLine.isEmpty ? "" : ": \(lastLine)") + "; check the voice '\(request.voice)'", category: .badData)
        }
        try Self.trimmed(raw, to: final, place: place, engine: request.engine.rawValue)
        return final
    }

    /// Runs the engine of `request` to its end, within the time limit (for `lines` lines); the
    /// last line it wrote to its standard error. Throws when it could not start, failed, ran too long or was cancelled.
    func speak(_ request: SpeechRequest, executable: String, arguments: [String], place: String, lines: Int = 1) throws -> String {
        let group: ProcessGroup
        do throws(IOError) {
            group = try ProcessGroup(executable: executable, arguments: arguments)
        } catch {
            throw RenderError("\(place): cannot run \(executable) (\(error.cause ?? error.message)); check that it is an executable program",
                              category: .missingInput)
        }
        let ending = group.wait(limitSeconds: timeLimitSeconds) { Task.isCancelled }
        let lastLine = group.errorTail.lastLine, said = lastLine.isEmpty ? "" : ": \(lastLine)"
        let engine = "\(request.engine.rawValue) ('\(request.engine.description.program(voice: request.voice))')"
        switch ending {
        case .exited(0):
            return lastLine
        case .exited(let code):
            throw RenderError("\(place): \(engine) failed with exit code \(code)\(said); check the voice '\(request.voice)' and the text",
                              category: .badData)
        case .signaled(let signal):
            throw RenderError("\(place): \(engine) was ended by signal \(signal)\(said); check the voice '\(request.voice)' and the text",
                              category: .badData)
        case .timedOut:
            throw RenderError("\(place): \(engine) ran past the time limit of \(String(format: "%g", timeLimitSeconds)) s for \(lines == 1 ? "one line" : "\(lines) lines") "
                + "and was stopped\(said); raise the limit ({speech-timeout}) or check that the program ends", category: .io)
        case .stopped:
            throw CancellationError()
        }
    }

    /// Below this, a sample at either end of the speech is silence and is cut (−60 dBFS).
    static let silenceThreshold: Float = 0.001

    /// Copies the engine's WAV to `final` (atomically) without its leading and trailing silence,
    /// so a line's first sound is on its first frame.
    static func trimmed(_ raw: String, to final: String, place: String, engine: String) throws {
        let asset: AudioAsset
        let rate: Int
        do {
            let reader = try SoundFileReader(path: raw)
            rate = reader.rate
            asset = try reader.readAll()
        } catch {
            throw RenderError("\(place): \(engine) wrote something that is not a sound (\(error)); check the engine", category: .badData)
        }
        let channels = asset.channels, frames = asset.frameCount
        func loud(_ frame: Int) -> Bool {
            (0..<channels).contains { abs(asset.samples[frame * channels + $0]) > silenceThreshold }
        }
        guard let first = (0..<frames).first(where: loud), let last = (0..<frames).last(where: loud) else {
            throw RenderError("\(place): \(engine) made only silence; check the voice and the text", category: .badData)
        }
        var samples = Array(asset.samples[(first * channels)..<((last + 1) * channels)])
        do {
            let file = try AtomicOutputFile(path: final)
            let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: channels, rate: rate)
            try samples.withUnsafeMutableBufferPointer { buffer throws(IOError) in
                try writer.write(buffer.baseAddress!, frameCount: last - first + 1)
            }
            try writer.finish()
            try file.commit()
        } catch {
            throw RenderError("\(place): cannot write the speech cache (\(error)); set XDG_CACHE_HOME to a folder you can write",
                              category: .cannotCreate)
        }
    }

    /// Each engine, whether it is installed, how to install it and the voices it has.
    public static func installedEngines() -> [(engine: GuideVoice.Engine, installed: Bool, installHint: String?, voices: [String])] {
        GuideVoice.Engine.allCases.filter { $0 != .command }.map { engine in
            let description = engine.description
            let installed = locate(description.program(voice: nil)) != nil
            let voices = installed ? EngineFacts.shared.voices(of: engine) ?? [] : []
            return (engine, installed, description.installHint, voices)
        }
    }

    /// A program's standard output (for listing voices and versions), empty when it fails;
    /// `input` is written to its standard input.
    static func output(of command: [String], input: String? = nil) -> String {
        guard let executable = locate(command[0]) else { return "" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let inPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        guard (try? process.run()) != nil else { return "" }
        if let input {
            // A program that exits without reading its input is no reason to stop (Foundation's
            // `write(_:)` would end the process on EPIPE).
            try? inPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        let data = Self.readAll(out.fileHandleForReading)
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Everything readable from a pipe until its end, retrying reads a signal interrupted; what
    /// was read when a read fails. (Foundation's `readDataToEndOfFile()` ends the process there.)
    static func readAll(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
            } else if n < 0, errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}

/// What this process has asked of the installed engines (their voices and versions), asked once:
/// festival takes seconds to list its voices.
// An engine is asked outside the lock, and what it says is stored under it.
final class EngineFacts: Sendable {
    static let shared = EngineFacts()
    private struct Known {
        var voiceLists: [GuideVoice.Engine: [String]?] = [:]
        var versions: [String: String] = [:]
    }
    private let known = Mutex(Known())

    /// The engine's installed voices (nil for one that cannot list them).
    func voices(of engine: GuideVoice.Engine) -> [String]? {
        if let listed = known.withLock({ $0.voiceLists[engine] }) { return listed }
        let voices = engine.description.installedVoices()
        known.withLock { $0.voiceLists[engine] = voices }
        return voices
    }

    /// The engine's version (for `command`, of that program; for Piper, of the voice's model;
    /// asked again when the file changed).
    func version(of engine: GuideVoice.Engine, program: String, voice: String) -> String {
        var key = "\(engine.rawValue) \(program)"
        if engine == .command, let path = SpeechSynthesizer.locate(program) { key += " \(FileIdentity(path: path))" }
        if engine == .piper, let model = PiperVoices.find(voice)?.model {
            key += " \(model) \(FileIdentity(path: model)) \(FileIdentity(path: model + ".json"))"
        }
        if let asked = known.withLock({ $0.versions[key] }) { return asked }
        let version = engine.description.version(program: program, voice: voice)
        known.withLock { $0.versions[key] = version }
        return version
    }
}
