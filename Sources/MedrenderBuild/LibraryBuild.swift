import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// `medrender build`: renders every preset × length × format of a library into one folder, with
/// cue sheets and a manifest, incrementally (an output is rendered again only when its inputs
/// changed), in parallel, resumably, and optionally as one shard of N.
public enum LibraryBuild {
    /// The renderer's version: part of every output's inputs hash, so a new renderer renders again.
    public static let rendererVersion = "0.2.5"

    /// The manifest's file name: `manifest.json`, or `manifest-K-of-N.json` for a shard.
    public static func manifestName(shard: LibraryBuildShard?) -> String {
        guard let shard else { return "manifest.json" }
        return "manifest-\(shard.index)-of-\(shard.count).json"
    }

    /// The cue sheets written beside each output.
    public static let cueSheetExtensions = ["json", "vtt"]
}

/// The K-th (1-based) of N shards: a job belongs to it when the first 8 bytes of the SHA-256 of
/// its output file name, as a big-endian integer, are K − 1 modulo N. Stable across machines.
public struct LibraryBuildShard: Hashable, Sendable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`, such as `2/4`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard (1-based) that `key` falls in, of `count`.
    public static func shardIndex(of key: String, count: Int) -> Int {
        var h = SHA256Hasher()
        h.update(key)
        let digest = h.finalize()
        var value: UInt64 = 0
        for byte in digest[0..<8] { value = value << 8 | UInt64(byte) }
        return Int(value % UInt64(count)) + 1
    }

    public func contains(_ key: String) -> Bool { Self.shardIndex(of: key, count: count) == index }
}

/// What to build.
public struct LibraryBuildSettings: Sendable {
    /// The preset files, in order.
    public var presetFiles: [String]
    public var outputDirectory: String
    /// The lengths to render each preset at; empty for each preset's own default.
    public var lengths: [SessionLength]
    /// Format names: ogg, wav, flac, opus, mp3.
    public var formats: [FormatName]
    public var rate: Int
    public var channels: Int
    public var quality: Double
    /// WAV and FLAC sample format; nil for 16-bit.
    public var bits: SampleFormat?
    /// Worker threads.
    public var jobs: Int
    public var shard: LibraryBuildShard?
    /// Also compare the SHA-256 of each existing output with the manifest's (slower), not only its size.
    public var verify: Bool
    public var library: PresetLibrary
    /// Seconds a speech engine may take to speak one line, above 0, default 120 (`--speech-timeout`).
    public var speechTimeLimitSeconds = SpeechSynthesizer.defaultTimeLimitSeconds
    /// Where each output's waveform is recorded as it is written, for its preview page; nil: none.
    public var waveforms: WaveformStore?
    /// The sounds decoded for the build, kept for what follows it (its preview pages plan each
    /// output with them); nil: the build keeps its own.
    public var sounds: SoundCache?

    public init(presetFiles: [String], outputDirectory: String, lengths: [SessionLength] = [], formats: [FormatName] = [.ogg],
                rate: Int = 48000, channels: Int = 2, quality: Double = 4, bits: SampleFormat? = nil,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, shard: LibraryBuildShard? = nil,
                verify: Bool = false, library: PresetLibrary)
    {
        self.presetFiles = presetFiles
        self.outputDirectory = outputDirectory
        self.lengths = lengths
        self.formats = formats
        self.rate = rate
        self.channels = channels
        self.quality = quality
        self.bits = bits
        self.jobs = jobs
        self.shard = shard
        self.verify = verify
        self.library = library
    }

    public var manifestPath: String { outputDirectory + "/" + LibraryBuild.manifestName(shard: shard) }
}

/// One output to render: a preset at one length in one format.
public struct LibraryBuildJob: Sendable {
    /// The preset's name: its file name without the extension.
    public var preset: String
    public var presetFile: String
    public var session: Session
    public var length: SessionLength
    public var formatName: String
    public var format: OutputFormat
    public var options: RenderOptions
    /// The output's file name in the output folder, such as `box-breath-15min.ogg`.
    public var outputName: String
    /// The cue sheets' file names beside it.
    public var cueSheetNames: [String]
    /// SHA-256 over the renderer's version, the options, the preset's bytes and every sound's bytes.
    public var inputsHash: String
    /// The output's length in frames, from the schedule (0 when the plan fails: the render will say why).
    public var totalFrames: Int64
    public var library: PresetLibrary
    /// The SHA-256 of each sound the job uses, by its path: the build's sound cache shares one
    /// decoded copy between files of the same bytes.
    public var soundHashes: [String: String] = [:]
    /// What the session speaks, as synthesized (part of the inputs hash and of the manifest).
    public var speech: [LibraryBuildManifest.Speech] = []

    /// The work of rendering it, for balancing shards: the seconds of audio it holds (a minute
    /// when its plan fails, as the render will fail fast).
    public var estimatedCost: Double {
        totalFrames > 0 ? Double(totalFrames) / Double(options.rate) : 60
    }
}

/// A preset or an output that could not be built.
public struct LibraryBuildFailure: Codable, Sendable, Hashable {
    public var preset: String
    /// The output, or nil when the whole preset failed (it could not be read, or a sound is missing).
    public var output: String?
    /// The error's description: what is wrong, where, and how to fix it.
    public var error: String
    /// What kind of failure it was; the command line turns it into an exit code.
    public var category: ErrorCategory
}

/// The manifest of an output folder: one entry per output, sorted by file name.
public struct LibraryBuildManifest: Codable, Sendable, Hashable {
    public var renderer: String
    /// `K/N` for a shard's manifest.
    public var shard: String?
    public var outputs: [Entry]

    public struct Entry: Codable, Sendable, Hashable {
        public var file: String
        public var preset: String
        public var minutes: Double?
        public var cycles: Int?
        public var format: String
        public var rate: Int
        public var channels: Int
        public var frames: Int64
        public var bytes: Int64
        public var sha256: String
        public var loudnessLUFS: Double?
        /// The voice's own loudness, for an output levelled on its voice (the render report's).
        public var speechLoudnessLUFS: Double? = nil
        public var truePeakDBTP: Double?
        public var inputsHash: String
        public var cueSheets: [String]
        /// The SHA-256 of each cue sheet, as written (checked by `--verify`).
        public var cueSheetSHA256: [String]?
        /// What the output speaks, in speaking order (absent when it speaks nothing): a changed
        /// line, voice or engine version renders that output again.
        public var speech: [Speech]?
    }

    /// One spoken text of an output, as its audio was made: engine, voice, language, text and
    /// the engine's version.
    public struct Speech: Codable, Sendable, Hashable {
        public var engine: String
        public var voice: String
        public var language: String
        public var text: String
        public var engineVersion: String
        /// Words a minute, when the line is spoken at a pace.
        public var pace: Int?

        public init(_ request: SpeechRequest) {
            engine = request.engine.rawValue
            voice = request.voice
            language = request.language.tag
            text = request.text
            engineVersion = request.engineVersion
            pace = request.pace
        }
    }

    public init(renderer: String = LibraryBuild.rendererVersion, shard: String? = nil, outputs: [Entry] = []) {
        self.renderer = renderer
        self.shard = shard
        self.outputs = outputs
    }

    public static func read(_ path: String) throws -> LibraryBuildManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RenderError("\(path): cannot be read", category: .missingInput)
        }
        let manifest: LibraryBuildManifest
        do {
            manifest = try JSONDecoder().decode(LibraryBuildManifest.self, from: data)
        } catch {
            throw RenderError("\(path): is not a medrender build manifest (\(Self.reason(error))); build again to replace it",
                              category: .badData)
        }
        // Its names are of files in its own folder: a path elsewhere (`../x`, `/x`) would make a
        // merge read and write outside the folders it was given.
        for entry in manifest.outputs {
            for name in [entry.file] + entry.cueSheets where !Self.isPlainFileName(name) {
                throw RenderError("\(path): lists '\(name)', which is not a file name in its folder; build again to replace it",
                                  category: .badData)
            }
        }
        return manifest
    }

    /// A name of a file inside a folder: not empty, not `.` or `..`, with no `/` and no NUL.
    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }

    /// Why JSON did not decode, in a few words.
    static func reason(_ error: any Error) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "the field '\(key.stringValue)' is missing\(at(context.codingPath))"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "the field\(at(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context)?: return context.codingPath.isEmpty ? "not JSON" : "a bad value\(at(context.codingPath))"
        default: return "\(error)"
        }
    }

    /// The manifest as JSON text: sorted keys, one entry per output, sorted by file.
    public func encoded() -> [UInt8] {
        var copy = self
        copy.outputs.sort { $0.file < $1.file }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(copy)) ?? Data()) + [UInt8(ascii: "\n")]
    }

    /// Writes the manifest atomically; a manifest already there with the same bytes is left alone.
    public func write(to path: String) throws(IOError) {
        let bytes = encoded()
        if let existing = FileManager.default.contents(atPath: path), Array(existing) == bytes { return }
        let file = try AtomicOutputFile(path: path)
        try file.write(bytes)
        try file.commit()
    }
}

extension LibraryBuild {
    /// The length in a file name: `15min`, `7.5min`, `40cycles`.
    public static func lengthLabel(_ length: SessionLength) -> String {
        switch length {
        case .cycles(let n): return "\(n)cycles"
        case .duration(let t): return "\(minutesText(t.milliseconds))min"
        }
    }

    /// Minutes from milliseconds without a trailing `.0`: 15, 7.5, 0.05.
    static func minutesText(_ ms: Int64) -> String {
        if ms % 60_000 == 0 { return String(ms / 60_000) }
        var text = String(format: "%.6f", Double(ms) / 60_000)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The options as the inputs hash sees them, in a fixed order.
    static func optionsText(_ job: (preset: String, length: SessionLength, format: OutputFormat, options: RenderOptions)) -> String {
        let length: String
        switch job.length {
        case .duration(let t): length = "duration:\(t.milliseconds)ms"
        case .cycles(let n): length = "cycles:\(n)"
        }
        let format: String
        switch job.format {
        case .ogg(let q): format = "ogg quality=\(q)"
        case .opus(let q): format = "opus quality=\(q)"
        case .mp3(let q): format = "mp3 quality=\(q)"
        case .wav(let bits): format = "wav bits=\(bits.rawValue)"
        case .flac(let bits): format = "flac bits=\(bits.rawValue)"
        }
        let layers = job.options.layers.map(\.rawValue).sorted().joined(separator: ",")
        return "preset=\(job.preset) length=\(length) format=\(format) rate=\(job.options.rate) channels=\(job.options.channels) layers=\(layers)"
    }

    /// The jobs of `settings` (those of its shard only) and the presets that failed before any job.
    ///
    /// Each distinct file (preset, sound, `Sounds/CREDITS.yaml`) is hashed once.
    public static func plan(_ settings: LibraryBuildSettings) -> (jobs: [LibraryBuildJob], failures: [LibraryBuildFailure]) {
        var jobs: [LibraryBuildJob] = []
        var failures: [LibraryBuildFailure] = []
        var fileHashes: [String: Result<String, any Error>] = [:]
        func hashFile(_ path: String) throws -> String {
            if let known = fileHashes[path] { return try known.get() }
            let value = Result { try SHA256Hasher.hash(fileAt: path) }
            fileHashes[path] = value
            return try value.get()
        }
        let creditsPath = settings.library.soundsFolder + "/CREDITS.yaml"
        let creditsHash = (try? hashFile(creditsPath)) ?? "none"
        // A teacher's libraries in front of the stock one credit their own sounds.
        let frontCredits = settings.library.front.map { "credits-front \((try? hashFile($0 + "/Sounds/CREDITS.yaml")) ?? "none")\n" }.joined()

        // The library's languages, read once; a catalog that does not read fails every preset.
        let languages = Result { () throws(PresetError) in try settings.library.languages() }
        for file in settings.presetFiles {
            let preset = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            // A preset that fails as a whole is reported by one shard only: the one its name falls in.
            let reportsPreset = settings.shard.map { $0.contains(preset) } ?? true
            func presetFailed(_ error: any Error) {
                guard reportsPreset else { return }
                failures.append(LibraryBuildFailure(preset: preset, output: nil, error: describe(error), category: category(of: error)))
            }
            let session: Session
            do {
                session = try PresetDecoder.load(path: file, languages: languages.get())
            } catch {
                presetFailed(error)
                continue
            }
            let presetHash: String
            do {
                presetHash = try hashFile(file)
            } catch {
                presetFailed(error)
                continue
            }
            var soundLines: [String] = []
            var soundHashes: [String: String] = [:]
            var missing: (any Error)?
            for ref in session.soundsUsed {
                guard let path = settings.library.soundPath(ref, presetFile: file) else {
                    missing = RenderError.missingSound(ref, preset: file, library: settings.library)
                    break
                }
                let hash: String
                do {
                    hash = try hashFile(path)
                } catch {
                    missing = RenderError("\(describe(error)); it is the sound '\(ref)' of \(file)", category: .missingInput)
                    break
                }
                soundLines.append("sound \(ref.name) \(hash)")
                // A sound's own credits file is in its tags too.
                if let beside = settings.library.creditsFile(forSoundAt: path) {
                    soundLines.append("sound-credits \(ref.name) \((try? hashFile(beside)) ?? "unreadable")")
                }
                soundHashes[path] = hash
            }
            // The cover image is in the output too (only a preset with one has this line).
            if missing == nil, let cover = session.metadata.cover {
                soundLines.append("cover \((try? hashFile(cover)) ?? "unreadable")")
            }
            if let missing {
                presetFailed(missing)
                continue
            }
            // What it speaks, its voice checked now (installed, known), before any render.
            let speech: [LibraryBuildManifest.Speech]
            do {
                speech = try GuideSpeech.requests(for: session, origin: file).map(LibraryBuildManifest.Speech.init)
            } catch {
                presetFailed(error)
                continue
            }
            let speechLines = speech.map {
                "speech \($0.engine)\u{0}\($0.voice)\u{0}\($0.language)\u{0}\($0.engineVersion)\u{0}\($0.text)"
                    + ($0.pace.map { "\u{0}pace \($0) \(EnginePacing.version)" } ?? "")
            }
            // The words of its chapters and captions: a corrected catalog renders it again.
                + LanguageCatalog.lines(of: session.language).map { "words \(session.language.tag) \($0)" }
            let lengths = settings.lengths.isEmpty ? [session.defaultLength] : settings.lengths
            for length in lengths {
                for formatName in settings.formats {
                    let format = formatName.format(quality: settings.quality, bits: settings.bits)
                    let rate = format.rate(for: settings.rate)
                    let base = "\(preset)-\(lengthLabel(length))"
                    let outputName = "\(base).\(format.fileExtension)"
                    // A sheet depends on the preset, the length and the rate only: named by them, two
                    // builds at different rates never write different sheets under one name.
                    let cueBase = rate == 48000 ? base : "\(base)-\(rate)hz"
                    let options = RenderOptions(rate: rate, channels: settings.channels, length: length)
                    var text = "medrender build inputs 1\nrenderer \(rendererVersion)\n"
                    text += "options \(optionsText((preset, length, format, options)))\n"
                    text += "preset \(presetHash)\n"
                    for line in soundLines { text += line + "\n" }
                    for line in speechLines { text += line + "\n" }
                    text += "credits \(creditsHash)\n" + frontCredits
                    // The length from the clock alone: each output plans once, when it renders.
                    let frames = (try? PlanOutline(session: session, options: options))?.frames(atRate: rate) ?? 0
                    jobs.append(LibraryBuildJob(
                        preset: preset, presetFile: file, session: session, length: length, formatName: format.fileExtension,
                        format: format, options: options, outputName: outputName,
                        cueSheetNames: cueSheetExtensions.map { "\(cueBase).\($0)" }, inputsHash: SHA256Hasher.hash(text),
                        totalFrames: frames, library: settings.library, soundHashes: soundHashes, speech: speech))
                }
            }
        }
        if let shard = settings.shard {
            let owner = shardAssignment(jobs.map { ($0.outputName, $0.estimatedCost) }, count: shard.count)
            jobs = jobs.filter { owner[$0.outputName] == shard.index }
        }
        return (jobs, failures)
    }

    /// Which shard (1-based) renders each output, balanced by work: the costliest output first,
    /// each to the shard with the least work so far (the lower shard on a tie), ties between
    /// outputs broken by name. Every task computes the same split from the same outputs.
    public static func shardAssignment(_ outputs: [(name: String, cost: Double)], count: Int) -> [String: Int] {
        var load = [Double](repeating: 0, count: max(1, count))
        var owner: [String: Int] = [:]
        let ordered = outputs.sorted { $0.cost != $1.cost ? $0.cost > $1.cost : $0.name < $1.name }
        for output in ordered where owner[output.name] == nil {
            let index = load.indices.min { load[$0] != load[$1] ? load[$0] < load[$1] : $0 < $1 }!
            load[index] += output.cost
            owner[output.name] = index + 1
        }
        return owner
    }

    /// An error's one-line description.
    static func describe(_ error: any Error) -> String {
        (error as? any DiagnosedError)?.description ?? "\(error)"
    }

    /// An error's category (internal for one medrender does not know).
    static func category(of error: any Error) -> ErrorCategory {
        (error as? any DiagnosedError)?.category ?? .internal
    }

    /// The category of a build with these failures: nil for none, bad data when a preset was bad,
    /// else the first failure's.
    public static func category(of failures: [LibraryBuildFailure]) -> ErrorCategory? {
        guard let first = failures.first else { return nil }
        if failures.contains(where: { $0.category == .badData }) { return .badData }
        return first.category
    }
}
