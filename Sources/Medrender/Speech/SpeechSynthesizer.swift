import Crypto
import Foundation
import MedrenderCore
import MedrenderIO
import Synchronization

/// One line to speak, resolved: engine, voice, language, text and pace.
public struct SpeechRequest: Hashable, Sendable {
    public var engine: GuideVoice.Engine
    /// The engine's voice (for `command`, the program).
    public var voice: String
    public var language: Language
    public var text: String
    /// The engine's own version (`SpeechEngine.version`): a new engine speaks anew.
    public var engineVersion: String
    /// Words a minute; nil speaks at the engine's own pace (prompts and counts).
    public var pace: Int?

    public init(engine: GuideVoice.Engine, voice: String, language: Language, text: String, engineVersion: String, pace: Int? = nil) {
        self.engine = engine
        self.voice = voice
        self.language = language
        self.text = text
        self.engineVersion = engineVersion
        self.pace = pace
    }

    /// What is spoken in one go: the request itself, or, for a text with `[pause N]` marks, one
    /// request a phrase, each with the silence after it.
    public var phrases: [(request: SpeechRequest, pauseAfter: SessionTime)] {
        guard text.contains("["), let cut = try? SpokenPhrases(text), cut.phrases.count > 1 else { return [(self, .zero)] }
        return cut.phrases.map { phrase in
            var part = self
            part.text = phrase.text
            return (part, phrase.pauseAfter)
        }
    }

    /// Changes whenever the way speech is made changes, so old cache entries are not reused.
    public static let version = "2"

    /// The cache key: SHA-256 of engine, voice, language, text, the engine's version and ours,
    /// and the pace when one is asked.
    public var key: String {
        var hasher = SHA256()
        let fields = ["medrender-speech", Self.version, engine.rawValue, voice, language.tag, text, engineVersion]
            + (pace.map { ["pace", "\($0)", EnginePacing.version] } ?? [])
        for field in fields {
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
        let phrases = request.phrases
        if phrases.count > 1 { return try joined(request, phrases: phrases, place: place) }
        let engine = request.engine.description
        let program = engine.program(voice: request.voice)
        guard let executable = Self.locate(program) else {
            let fix = engine.installHint.map { "install it: \($0)" }
                ?? "give the program's path, executable, as the voice's name"
            throw RenderError("\(place): the speech engine \(request.engine.rawValue) ('\(program)') is not installed; \(fix)",
                              category: .missingInput)
        }
        try makeCacheDirectory(place: place)
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
        func spoken(at scale: Double?) throws -> TrimmedSpeech {
            try? FileManager.default.removeItem(atPath: raw)
            let lastLine = try speak(request, executable: executable,
                                     arguments: engine.arguments(voice: request.voice, text: request.text, textFile: textFile,
                                                                 output: raw, scale: scale),
                                     place: place)
            // Some engines exit 0 after saying why they spoke nothing (an unknown voice).
            let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? NSNumber)?.int64Value ?? 0
            guard size > 0 else {
                throw RenderError("\(place): \(request.engine.rawValue) ('\(program)') wrote no audio"
                    + (lastLine.isEmpty ? "" : ": \(lastLine)") + "; check the voice '\(request.voice)'", category: .badData)
            }
            return try Self.trimmed(raw, place: place, engine: request.engine.rawValue)
        }
        try paced(request, engine: engine, speak: spoken).write(to: final, place: place)
        return final
    }

    /// The line spoken by `speak` at its pace: at the engine's scale for the pace, then again at
    /// the scale the engine's model corrects it to, while it misses by more than the tolerance (at
    /// most three times more); the nearest take is kept. Without a pace (or a way to set one), one take.
    func paced(_ request: SpeechRequest, engine: any SpeechEngine, speak: (Double?) throws -> TrimmedSpeech) throws -> TrimmedSpeech {
        guard let pace = request.pace, let pacing = engine.pacing else { return try speak(nil) }
        let target = EnginePacing.seconds(of: request.text, at: pace)
        var scale = pacing.scale(for: pace)
        var best = try speak(scale)
        var last = best
        for _ in 0..<3 where EnginePacing.miss(last.seconds, target: target) > EnginePacing.tolerance {
            scale = pacing.corrected(scale, measured: last.seconds, target: target)
            last = try speak(scale)
            if EnginePacing.miss(last.seconds, target: target) < EnginePacing.miss(best.seconds, target: target) { best = last }
        }
        return best
    }

    /// A line of several phrases: each phrase's audio (from the cache, or spoken now), joined with
    /// the exact silence each `[pause N]` asks for, put in the cache as the line's.
    func joined(_ request: SpeechRequest, phrases: [(request: SpeechRequest, pauseAfter: SessionTime)], place: String) throws -> String {
        var whole: TrimmedSpeech?
        for (phrase, pause) in phrases {
            let path = try audio(for: phrase, place: place)
            var part = try Self.trimmed(path, place: place, engine: request.engine.rawValue)
            part.samples += [Float](repeating: 0, count: Int(pause.frameCount(atRate: part.rate)) * part.channels)
            if var sofar = whole {
                guard sofar.rate == part.rate, sofar.channels == part.channels else {
                    throw RenderError("\(place): \(request.engine.rawValue) spoke the phrases of one line at different rates; check the engine",
                                      category: .badData)
                }
                sofar.samples += part.samples
                whole = sofar
            } else {
                whole = part
            }
        }
        let final = cachedPath(request)
        try whole!.write(to: final, place: place)
        return final
    }

    /// Makes the cache folder, or says how to give one that can be made.
    func makeCacheDirectory(place: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw RenderError("\(place): cannot create the speech cache \(cacheDirectory) (\(error.localizedDescription)); "
                + "set XDG_CACHE_HOME to a folder you can write", category: .cannotCreate)
        }
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

    /// The engine's WAV without its leading and trailing silence, so a line's first sound is on
    /// its first frame.
    static func trimmed(_ raw: String, place: String, engine: String) throws -> TrimmedSpeech {
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
        return TrimmedSpeech(samples: Array(asset.samples[(first * channels)..<((last + 1) * channels)]), channels: channels, rate: rate)
    }

    /// Copies the engine's WAV to `final` (atomically) without its leading and trailing silence.
    static func trimmed(_ raw: String, to final: String, place: String, engine: String) throws {
        try trimmed(raw, place: place, engine: engine).write(to: final, place: place)
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

/// A line's audio as the cache keeps it: its samples from its first sound to its last.
struct TrimmedSpeech {
    var samples: [Float]
    var channels: Int
    var rate: Int

    var frameCount: Int { samples.count / channels }
    /// Its length, which its pace is measured on.
    var seconds: Double { Double(frameCount) / Double(rate) }

    /// Writes it to `final` as a WAV, atomically.
    func write(to final: String, place: String) throws {
        var samples = samples
        do {
            let file = try AtomicOutputFile(path: final)
            let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: channels, rate: rate)
            try samples.withUnsafeMutableBufferPointer { buffer throws(IOError) in
                try writer.write(buffer.baseAddress!, frameCount: frameCount)
            }
            try writer.finish()
            try file.commit()
        } catch {
            throw RenderError("\(place): cannot write the speech cache (\(error)); set XDG_CACHE_HOME to a folder you can write",
                              category: .cannotCreate)
        }
    }
}
