import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// Everything one render needs.
public struct RenderRequest: Sendable {
    public var session: Session
    /// The preset file the session came from, for messages and for sounds named relative to it.
    public var presetFile: String
    public var options: RenderOptions
    public var format: OutputFormat
    public var outputPath: String
    public var library: PresetLibrary
    /// When set, each layer is also written to this folder as its own file, aligned to the mix.
    public var stemsDirectory: String?
    /// Replace a missing sound with the bundled sound of the same role (`--fallback stock`).
    public var stockFallback = false
    /// Sounds already decoded and resampled, shared by the renders of one build.
    public var soundCache: SoundCache?
    /// Cue sheets to write beside the audio (`.json`, `.vtt`, `.txt`), put in place with it.
    public var cueSheetPaths: [String] = []
    /// The cores the render may keep busy. With 2 or more, pass 1's two parts run side by side and
    /// pass 2 mixes on one thread while it encodes on another; with 1, all of it runs on the
    /// calling thread (a build at `-j N` gives each of its N renders one core). The bytes written
    /// are the same either way.
    public var threads = 2

    public init(session: Session, presetFile: String, options: RenderOptions, format: OutputFormat,
                outputPath: String, library: PresetLibrary, stemsDirectory: String? = nil) {
        self.stemsDirectory = stemsDirectory
        self.session = session
        self.presetFile = presetFile
        self.options = options
        self.format = format
        self.outputPath = outputPath
        self.library = library
    }
}

/// What a render did, for people and for scripts.
public struct RenderReport: Sendable, Codable, Hashable {
    public var output: String
    public var rate: Int
    public var channels: Int
    public var frames: Int64
    public var durationSeconds: Double
    public var cycles: Int
    /// Integrated loudness of the mix before the gain, in LUFS.
    public var measuredLoudnessLUFS: Double?
    /// The gain applied to reach the target, in dB.
    public var gainDecibels: Double
    /// Integrated loudness of what was written, in LUFS (before 16-bit dither or encoding).
    public var loudnessLUFS: Double?
    /// Loudness range of what was written, in LU.
    public var loudnessRangeLU: Double?
    /// True peak of what was written, in dBTP (4× interpolated near the peaks).
    public var truePeakDBTP: Double?
    /// The stems written, one per layer.
    public var stems: [String] = []
    /// What the render had to work around (a missing sound replaced by a bundled one).
    public var warnings: [String] = []
    /// The largest sample written, in dBFS.
    public var samplePeakDBFS: Double?
    /// The deepest gain reduction of the true-peak limiter, in dB (0 when it never acted).
    public var limiterReductionDecibels: Double
}

/// How far a render has come: pass 1 measures, pass 2 writes.
public struct RenderProgress: Sendable {
    public var pass: Int
    public var framesDone: Int64
    public var totalFrames: Int64
}

/// Renders a session to a file: loads the sounds once, mixes twice (measure, then write), and
/// writes atomically.
public enum Renderer {
    /// Frames per block; the mixer, the master chain and the encoders all work in these.
    public static let blockFrames = 4096

    /// Plans the request without loading any sound: enough for a cue sheet.
    public static func schedulePlan(_ request: RenderRequest) throws(RenderError) -> RenderPlan {
        do {
            return try RenderPlan(session: request.session, options: request.options)
        } catch {
            throw RenderError.plan(error, preset: request.presetFile)
        }
    }

    /// Loads every sound the plan needs and makes the final plan.
    public static func prepare(_ request: RenderRequest) throws -> (RenderPlan, MixAssets) {
        let (plan, assets, _, _) = try prepareWithCredits(request)
        return (plan, assets)
    }

    /// Everything a render of `request` checks before mixing: the preset, every sound (found,
    /// readable, decoded, not too long) and the plan with the sounds' lengths (clips and prompts
    /// that fit). Returns the plan.
    public static func check(_ request: RenderRequest) throws -> RenderPlan {
        try prepareWithCredits(request).0
    }

    /// The files a render of `request` writes: the audio (unless it goes to standard output), the
    /// cue sheets, and a stem per layer.
    static func outputPaths(_ request: RenderRequest, layers: Set<Layer>) -> [String] {
        var paths = request.outputPath == OutputWriter.standardOutput ? [] : [request.outputPath]
        paths += request.cueSheetPaths
        if request.stemsDirectory != nil {
            for layer in Layer.allCases where layers.contains(layer) { paths.append(stemPath(request, layer: layer)) }
        }
        return paths
    }

    /// Where the stem of `layer` goes: `<stems>/<output's name>-<layer>.<ext>` (the session's name
    /// for standard output).
    static func stemPath(_ request: RenderRequest, layer: Layer) -> String {
        let base = request.outputPath == OutputWriter.standardOutput
            ? request.session.name : URL(fileURLWithPath: request.outputPath).deletingPathExtension().lastPathComponent
        var folder = request.stemsDirectory ?? "."
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        return "\(folder)/\(base)-\(layer.rawValue).\(request.format.fileExtension)"
    }

    /// Loads every sound the plan needs, makes the final plan, and gathers the sounds' credits.
    static func prepareWithCredits(_ request: RenderRequest) throws -> (RenderPlan, MixAssets, [String], [String]) {
        let draft = try schedulePlan(request)
        var sounds: [SoundRef: AudioAsset] = [:]
        var facts: [SoundRef: SoundFacts] = [:]
        var credits: [String] = []
        // Every file the render writes (the audio, its cue sheets, its stems), by resolved path: none
        // may be one of the files it reads.
        var writes: [String: String] = [:]
        for path in outputPaths(request, layers: draft.layers) { writes[FilePaths.resolved(path)] = path }
        if let output = writes[FilePaths.resolved(request.presetFile)] {
            throw RenderError("\(request.presetFile): the preset is the output file \(output); write the session elsewhere",
                              category: .usage)
        }
        var warnings: [String] = []
        for ref in draft.soundsUsed {
            var found = request.library.soundPath(ref, presetFile: request.presetFile)
            if found == nil, request.stockFallback, let (role, stock) = request.session.stockReplacement(for: ref),
                let stockPath = request.library.soundPath(stock, presetFile: nil)
            {
                found = stockPath
                warnings.append("\(request.presetFile): the \(role.rawValue) sound '\(ref)' was not found; using the bundled '\(stock)' instead")
            }
            guard let path = found else {
                throw RenderError.missingSound(ref, preset: request.presetFile, library: request.library)
            }
            if let output = writes[FilePaths.resolved(path)] {
                throw RenderError("\(request.presetFile): the sound '\(ref)' is the output file \(output); write the session elsewhere",
                                  category: .usage)
            }
            let name = URL(fileURLWithPath: path).lastPathComponent
            switch request.library.credit(forSoundAt: path) {
            case .listed(let author, let license):
                credits.append("\(name): \(author), \(license)")
            case .outsideLibrary:
                credits.append("\(name): credits not known")
            case .unknown(let why):
                credits.append("\(name): credits not known")
                warnings.append("\(why); the output's tags say 'credits not known' for it: add its author and license there")
            }
            let loaded = try (request.soundCache ?? SoundCache()).sound(at: path, rate: request.options.rate) {
                let reader = try SoundFileReader(path: path)
                var asset = try reader.readAll()
                guard asset.frameCount > 0 else {
                    throw IOError(.badData, "holds no audio; the sound '\(ref)' needs at least one frame", path: path)
                }
                // Resampled, it must fit in memory too (a long sound at 192000 Hz is 4 times larger).
                let resampledSamples = Double(asset.samples.count) * Double(request.options.rate) / Double(reader.rate)
                guard resampledSamples <= Double(SoundFileReader.maximumSamples) else {
                    let gib = resampledSamples * 4 / Double(1 << 30)
                    throw IOError(.badData, String(format: "would take %.1f GiB at %d Hz; medrender holds each sound in memory, up to 2 GiB: render at a lower --rate or use a shorter sound", gib, request.options.rate), path: path)
                }
                asset = try Resampler.resample(asset, from: reader.rate, to: request.options.rate)
                return (asset, try loudness(of: asset, rate: request.options.rate))
            }
            sounds[ref] = loaded.asset
            facts[ref] = SoundFacts(frameCount: Int64(loaded.asset.frameCount), loudnessLUFS: loaded.loudness)
        }
        do {
            let plan = try RenderPlan(session: request.session, options: request.options, sounds: facts)
            var assets = MixAssets(sounds: sounds, facts: facts)
            assets.bakeLoops(for: plan)
            return (plan, assets, credits, warnings)
        } catch {
            throw RenderError.plan(error, preset: request.presetFile)
        }
    }

    /// The integrated loudness of a sound, measured as it will play (mono as dual mono).
    static func loudness(of asset: AudioAsset, rate: Int) throws(IOError) -> Double? {
        let meter = try LoudnessMeter(channels: asset.channels, rate: rate)
        try asset.samples.withUnsafeBufferPointer { (p) throws(IOError) in
            try meter.add(p.baseAddress!, frameCount: asset.frameCount)
        }
        let value = try meter.integratedLoudness()
        return value.isFinite ? value : nil
    }

    /// The most the loudness gain raises a quiet mix, in dB.
    static let maximumGainDecibels = 60.0

    /// Renders `request` to its output file (and its cue sheets and stems) and reports what it
    /// wrote. Every file is written beside its place first and they are put in place together at
    /// the end, so a render that fails anywhere changes none of them.
    public static func render(_ request: RenderRequest, progress: ((RenderProgress) -> Void)? = nil) throws -> RenderReport {
        let (plan, assets, credits, warnings) = try prepareWithCredits(request)
        let tags = outputTags(request, plan: plan, credits: credits)
        // Every output is created first, so a folder that cannot take one fails before any mixing.
        let writer = try OutputWriter(format: request.format, path: request.outputPath, plan: plan, tags: tags,
                                      seed: request.session.seed, blockFrames: blockFrames)
        var cueSheets: [AtomicOutputFile] = []
        for path in request.cueSheetPaths { cueSheets.append(try CueSheetWriter.prepare(plan, to: path)) }
        let stems = request.stemsDirectory == nil ? [] : try openStems(request, plan: plan, sounds: assets.facts, tags: tags)
        let channels = plan.channels
        let total = plan.totalFrames

        // Pass 1: measure the mix as it will be, before the gain, in parts (side by side when parallel).
        let parallel = request.threads > 1
        let measured = try measureLoudness(plan: plan, assets: assets, parallel: parallel, progress: progress)
        let gainDecibels = measured.isFinite ? min(maximumGainDecibels, plan.master.loudnessLUFS - measured) : 0
        let gain = Float(decibelsToGain(gainDecibels))

        // Pass 2: mixing, the gain and the limiter on one thread; measuring and encoding on this one
        // (or all of it on this one).
        let limiter = TruePeakLimiter(channels: channels, rate: plan.rate, ceilingDecibels: plan.master.truePeakDBTP)
        let producer = Handoff(try PassTwoProducer(plan: plan, assets: assets, gain: gain, limiter: limiter))
        let pipeline = BlockPipeline(depth: parallel ? 8 : 1, samplesPerBlock: blockFrames * channels)
        var written: Int64 = 0
        try pipeline.run(onOwnThread: parallel, produce: { block in producer.value.next(into: &block) }) { block in
            let start = block.samples + block.offset * channels
            try writer.write(start, frameCount: block.frames)
            written += Int64(block.frames)
            progress?(RenderProgress(pass: 2, framesDone: written, totalFrames: total))
        }
        try writer.finish()
        if let error = producer.value.failure { throw error }
        let outputMeter = producer.value.meter, truePeak = producer.value.truePeak
        let peak = producer.value.samplePeak
        let loudness = try outputMeter.integratedLoudness()
        let range = try outputMeter.loudnessRange()
        var notes = warnings
        // The gain reaches the target unless the limiter or the gain's cap holds the mix down.
        let target = plan.master.loudnessLUFS
        if !loudness.isFinite {
            notes.append(String(format: "the mix is below -70 LUFS, too quiet to measure, so it was not raised to the target %.1f LUFS; make its sounds or cues louder", target))
        } else if target - loudness > 0.5 {
            let cause = gainDecibels >= maximumGainDecibels
                ? String(format: "the mix is too quiet to raise further (the gain stops at +%.0f dB)", maximumGainDecibels)
                : String(format: "the true-peak ceiling (%.1f dBTP) holds it down; lower --loudness or raise --true-peak",
                         plan.master.truePeakDBTP)
            notes.append(String(format: "the output is %.1f LUFS, %.1f LU under the target %.1f LUFS: ", loudness, target - loudness, target)
                + cause)
        }
        try writeStems(stems, assets: assets, gain: gain)

        // All done: into place, the audio first, holding the folders' locks so that another render
        // into the same places puts its set in place before or after this one, never between.
        let places = ([writer.path] + stems.map(\.writer.path) + request.cueSheetPaths)
            .filter { $0 != OutputWriter.standardOutput && !StreamOutput.isStream($0) }
            .map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        try FolderLock.withLock(on: places) {
            try writer.commit()
            for stem in stems { try stem.writer.commit() }
            for sheet in cueSheets { try sheet.commit() }
        }
        return RenderReport(
            output: request.outputPath, rate: plan.rate, channels: channels, frames: total,
            durationSeconds: Double(total) / Double(plan.rate), cycles: plan.schedule.cycleCount,
            measuredLoudnessLUFS: measured.isFinite ? measured : nil, gainDecibels: gainDecibels,
            loudnessLUFS: loudness.isFinite ? loudness : nil,
            loudnessRangeLU: range.isFinite ? range : nil,
            truePeakDBTP: truePeak.peak > 0 ? truePeak.peakDecibels : nil, stems: stems.map(\.writer.path), warnings: notes,
            samplePeakDBFS: peak > 0 ? gainToDecibels(Double(peak)) : nil,
            limiterReductionDecibels: -gainToDecibels(Double(producer.value.limiter.deepestGain)))
    }

    /// A stem: one layer's plan and its writer.
    struct Stem {
        var plan: RenderPlan
        var writer: OutputWriter
    }

    /// Opens a stem per layer of the plan, at `stemPath`.
    static func openStems(_ request: RenderRequest, plan: RenderPlan, sounds: [SoundRef: SoundFacts], tags: OutputTags) throws -> [Stem] {
        var stems: [Stem] = []
        for layer in Layer.allCases where plan.layers.contains(layer) {
            var options = request.options
            options.layers = [layer]
            let layerPlan = try RenderPlan(session: request.session, options: options, sounds: sounds)
            var layerTags = tags
            layerTags.title += " (\(layer.rawValue))"
            let writer = try OutputWriter(format: request.format, path: stemPath(request, layer: layer), plan: layerPlan,
                                          tags: layerTags, seed: request.session.seed, blockFrames: blockFrames)
            stems.append(Stem(plan: layerPlan, writer: writer))
        }
        return stems
    }

    /// Writes each layer on its own, with the mix's gain and fades (and no limiter, so the stems
    /// add up to the mix before limiting), and finishes each file (it is committed with the mix).
    static func writeStems(_ stems: [Stem], assets: MixAssets, gain: Float) throws {
        for stem in stems {
            let layerPlan = stem.plan
            let mixer = Mixer(plan: layerPlan, assets: assets)
            let fades = MasterFades(plan: layerPlan)
            var buffer = [Float](repeating: 0, count: blockFrames * layerPlan.channels)
            var done: Int64 = 0
            while done < layerPlan.totalFrames {
                let n = Int(min(Int64(blockFrames), layerPlan.totalFrames - done))
                try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) in
                    let b = p.baseAddress!
                    mixer.render(into: b, frameCount: n)
                    fades.apply(b, channels: layerPlan.channels, startFrame: done, frameCount: n)
                    for i in 0..<(n * layerPlan.channels) {
                        let y = b[i] * gain
                        b[i] = y.isFinite ? max(-1, min(1, y)) : 0
                    }
                    try stem.writer.write(b, frameCount: n)
                }
                done += Int64(n)
            }
            try stem.writer.finish()
        }
    }

    /// The tags of the output: the preset's metadata (or its name), the sounds' credits, the sections.
    static func outputTags(_ request: RenderRequest, plan: RenderPlan, credits: [String]) -> OutputTags {
        let m = request.session.metadata
        return OutputTags(title: m.title ?? request.session.name, artist: m.artist, album: m.album, date: m.date,
                          comment: m.comment ?? request.session.description, credits: credits, chapters: plan.sections)
    }
}

/// Pass 2's first half: mixes a block, applies the fades, the gain and the limiter, measures what
/// will be written (loudness, loudness range, true peak), and says which of the limited frames to
/// keep (the limiter's delay is skipped at the start and filled at the end). The encoder, on the
/// other core, then does nothing but encode.
final class PassTwoProducer {
    let meter: LoudnessMeter
    let truePeak: TruePeakMeter
    private(set) var samplePeak: Float = 0
    private(set) var failure: IOError?
    let plan: RenderPlan
    let mixer: Mixer
    let fades: MasterFades
    let gain: Float
    let limiter: TruePeakLimiter
    private var input: [Float]
    private var toSkip: Int64
    private var fed: Int64 = 0
    private var emitted: Int64 = 0

    init(plan: RenderPlan, assets: MixAssets, gain: Float, limiter: TruePeakLimiter) throws(IOError) {
        self.meter = try LoudnessMeter(channels: plan.channels, rate: plan.rate, withRange: true)
        self.truePeak = TruePeakMeter(channels: plan.channels)
        self.plan = plan
        self.mixer = Mixer(plan: plan, assets: assets)
        self.fades = MasterFades(plan: plan)
        self.gain = gain
        self.limiter = limiter
        self.input = [Float](repeating: 0, count: Renderer.blockFrames * plan.channels)
        self.toSkip = Int64(limiter.latency)
    }

    /// Fills `block` with the next frames to write; false when the session is done.
    func next(into block: inout BlockPipeline.Block) -> Bool {
        let channels = plan.channels
        let n = Renderer.blockFrames
        while emitted < plan.totalFrames {
            input.withUnsafeMutableBufferPointer { inp in
                mixer.render(into: inp.baseAddress!, frameCount: n)
                fades.apply(inp.baseAddress!, channels: channels, startFrame: fed, frameCount: n)
                for i in 0..<(n * channels) { inp[i] *= gain }
                limiter.process(inp.baseAddress!, block.samples, frameCount: n)
            }
            fed += Int64(n)
            let skip = Int(min(toSkip, Int64(n)))
            toSkip -= Int64(skip)
            let emit = Int(min(Int64(n - skip), plan.totalFrames - emitted))
            if emit > 0 {
                block.offset = skip
                block.frames = emit
                emitted += Int64(emit)
                let start = block.samples + skip * channels
                for i in 0..<(emit * channels) { samplePeak = max(samplePeak, abs(start[i])) }
                truePeak.add(start, frameCount: emit)
                do {
                    try meter.add(start, frameCount: emit)
                } catch {
                    failure = error
                }
                return true
            }
        }
        return false
    }
}

/// Sounds decoded and resampled once, with their loudness, and shared read-only by every render
/// that uses them (the renders of a build run side by side). A sound is known by the SHA-256 of
/// its bytes when the build has hashed it (so two files of the same bytes are decoded once), else
/// by its path, size and modification time; and by the rate.
public final class SoundCache: @unchecked Sendable {
    struct Key: Hashable {
        enum Identity: Hashable {
            case content(sha256: String)
            /// The size and modification time too, so a file changed during a build is read again.
            case file(path: String, size: Int64, modified: Double)
        }
        var identity: Identity
        var rate: Int
    }

    private let lock = NSLock()
    private var entries: [Key: (asset: AudioAsset, loudness: Double?)] = [:]
    private var contentHashes: [String: String] = [:]
    private var loads = 0

    public init() {}

    /// How many sounds it holds.
    public var count: Int { lock.withLock { entries.count } }

    /// How many times a sound was decoded.
    public var decodeCount: Int { lock.withLock { loads } }

    /// Records the SHA-256 of the sounds' bytes, by path.
    public func know(hashes: [String: String]) {
        lock.withLock {
            for (path, hash) in hashes { contentHashes[Self.standardized(path)] = hash }
        }
    }

    static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// The sound at `path` at `rate`, loaded by `load` the first time it is asked for.
    func sound(at path: String, rate: Int, load: () throws -> (AudioAsset, Double?)) throws -> (asset: AudioAsset, loudness: Double?) {
        let standard = Self.standardized(path)
        // Held while loading, so two renders never decode the same sound twice.
        lock.lock()
        defer { lock.unlock() }
        let identity: Key.Identity
        if let hash = contentHashes[standard] {
            identity = .content(sha256: hash)
        } else {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            identity = .file(path: standard, size: (attributes?[.size] as? NSNumber)?.int64Value ?? -1,
                             modified: (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1)
        }
        let key = Key(identity: identity, rate: rate)
        if let entry = entries[key] { return entry }
        let (asset, loudness) = try load()
        loads += 1
        entries[key] = (asset, loudness)
        return (asset, loudness)
    }
}
