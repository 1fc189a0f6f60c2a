import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// One render, from a resolved session to a destination: what an app or a server embeds. It
/// knows no preset library, no command line and no exit code; its sounds are found before it is
/// made (`PresetLibrary.resolveSounds`), and its errors carry a category.
public struct RenderJob: Sendable {
    public var session: Session
    /// Every sound the session needs, found and credited.
    public var sounds: ResolvedSounds
    public var options: RenderOptions
    public var format: OutputFormat
    /// What messages call the session's source (its preset file, or its name).
    public var origin: String
    /// Cue sheets to write beside the audio (`.json`, `.vtt`, `.txt`), put in place with it.
    public var cueSheetPaths: [String] = []
    /// When set, each layer is also written to this folder as its own file, aligned to the mix.
    public var stemsDirectory: String?
    /// Sounds already decoded and resampled, shared by the renders of a build or a server.
    public var soundCache: SoundCache?
    /// Measured loudness of mixes already rendered, so a repeat skips pass 1 and streams at once.
    public var loudnessCache: LoudnessCache?
    /// The cores the render may keep busy. With 2 or more, the sounds load two at a time, pass 1's
    /// two pairs of parts run side by side and pass 2 mixes on one thread while it encodes on
    /// another; with 1, all of it runs on the calling thread. The bytes written are the same
    /// either way.
    public var threads = 2
    /// The name a stream's stems take (the output file's name otherwise).
    var streamName: String { session.name }

    public init(session: Session, sounds: ResolvedSounds, options: RenderOptions, format: OutputFormat, origin: String) {
        self.session = session
        self.sounds = sounds
        self.options = options
        self.format = format
        self.origin = origin
    }

    /// The plan without any sound loaded: enough for a cue sheet's breath phases, not for clips.
    public func schedulePlan() throws(RenderError) -> RenderPlan {
        do {
            return try RenderPlan(session: session, options: options)
        } catch {
            throw RenderError.plan(error, preset: origin)
        }
    }

    /// Everything a render checks before mixing: every sound decoded, the plan made with their
    /// lengths (clips and prompts that fit). Returns the plan, as the cue sheet gives it.
    public func plan() throws -> RenderPlan {
        try prepare(writing: []).plan
    }

    /// The plan, the assets and the credits, with every sound loaded once (from the cache when it
    /// holds them). No output may be one of the files the render reads.
    func prepare(writing outputs: [String]) throws -> (plan: RenderPlan, assets: MixAssets) {
        let draft = try schedulePlan()
        var writes: [String: String] = [:]
        for path in outputs { writes[FilePaths.resolved(path)] = path }
        if let output = writes[FilePaths.resolved(origin)] {
            throw RenderError("\(origin): the preset is the output file \(output); write the session elsewhere", category: .usage)
        }
        var wanted: [ResolvedSound] = []
        for ref in draft.soundsUsed {
            guard let sound = sounds.sounds[ref] else {
                throw RenderError("\(origin): the sound '\(ref)' was not resolved before the render; resolve the session's sounds first",
                                  category: .internal)
            }
            if let output = writes[FilePaths.resolved(sound.path)] {
                throw RenderError("\(origin): the sound '\(ref)' is the output file \(output); write the session elsewhere",
                                  category: .usage)
            }
            wanted.append(sound)
        }
        let loaded = try SoundLoader.load(wanted, rate: options.rate, cache: soundCache ?? SoundCache(), parallel: threads > 1)
        var assets: [SoundRef: AudioAsset] = [:]
        var facts: [SoundRef: SoundFacts] = [:]
        for (sound, (asset, loudness)) in zip(wanted, loaded) {
            assets[sound.ref] = asset
            facts[sound.ref] = SoundFacts(frameCount: Int64(asset.frameCount), loudnessLUFS: loudness.forOutput(channels: options.channels),
                                          loopsNaturally: sound.loopsNaturally)
        }
        do {
            let plan = try RenderPlan(session: session, options: options, sounds: facts)
            var mix = MixAssets(sounds: assets, facts: facts)
            mix.bake(for: plan)
            return (plan, mix)
        } catch {
            throw RenderError.plan(error, preset: origin)
        }
    }

    /// The files the render writes: the audio (when it goes to a file), the cue sheets, the stems.
    func outputPaths(to destination: RenderDestination, layers: Set<Layer>) -> [String] {
        var paths = destination.filePath.map { [$0] } ?? []
        paths += cueSheetPaths
        if stemsDirectory != nil {
            for layer in Layer.allCases where layers.contains(layer) { paths.append(stemPath(to: destination, layer: layer)) }
        }
        return paths
    }

    /// Where the stem of `layer` goes: `<stems>/<output's name>-<layer>.<ext>` (the session's name
    /// for a stream).
    func stemPath(to destination: RenderDestination, layer: Layer) -> String {
        let base = destination.filePath.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? streamName
        var folder = stemsDirectory ?? "."
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        return "\(folder)/\(base)-\(layer.rawValue).\(format.fileExtension)"
    }

    /// The most the loudness gain raises a quiet mix, in dB.
    static let maximumGainDecibels = 60.0

    /// Renders to `destination` (and the cue sheets and stems) and reports what it wrote. Every
    /// file is written beside its place first and they are put in place together at the end, so a
    /// render that fails anywhere changes none of them.
    public func run(to destination: RenderDestination,
                    progress: (@Sendable (RenderProgress) -> Void)? = nil) throws -> RenderReport {
        let (plan, assets) = try prepare(writing: outputPaths(to: destination, layers: Set(Layer.allCases)))
        let tags = outputTags(plan: plan)
        // Every output is created first, so a folder that cannot take one fails before any mixing.
        func makeWriter() throws -> OutputWriter {
            switch destination {
            case .file(let path):
                return try OutputWriter(format: format, path: path, plan: plan, tags: tags, seed: session.seed, blockFrames: Renderer.blockFrames)
            case .standardOutput:
                return try OutputWriter(format: format, path: OutputWriter.standardOutput, plan: plan, tags: tags, seed: session.seed,
                                        blockFrames: Renderer.blockFrames)
            case .sink(let sink):
                return try OutputWriter(format: format, path: NSTemporaryDirectory() + "/medrender-stream.\(format.fileExtension)",
                                        stream: RenderSinkAdapter(sink), plan: plan, tags: tags, seed: session.seed,
                                        blockFrames: Renderer.blockFrames)
            }
        }
        let firstWriter = try makeWriter()
        var cueSheets: [AtomicOutputFile] = []
        for path in cueSheetPaths { cueSheets.append(try CueSheetWriter.prepare(plan, to: path)) }
        let stems = stemsDirectory == nil ? [] : try openStems(to: destination, plan: plan, sounds: assets.facts, tags: tags)
        let channels = plan.channels
        let total = plan.totalFrames
        // Progress weighs each pass by what it costs for this format (pass 1 is a few per cent).
        let checked = DecodedCheck.headroomDecibels(format, rate: plan.rate) > 0 && firstWriter.temporaryPath != nil
        let weights = PassWeights.forFormat(format, checked: checked)
        var weighted: (@Sendable (RenderProgress) -> Void)?
        if let progress {
            weighted = { @Sendable (report: RenderProgress) in
                var report = report
                report.weights = weights
                progress(report)
            }
        }

        // Pass 1: measure the mix as it will be, before the gain (or take the measure of the same
        // mix made before).
        let parallel = threads > 1
        let mixKey = LoudnessCache.Key(job: self)
        let measured: Double
        if let known = loudnessCache?.measured(mixKey) {
            measured = known
        } else {
            measured = try Renderer.measureLoudness(plan: plan, assets: assets, parallel: parallel, progress: weighted)
            loudnessCache?.record(measured, for: mixKey)
        }
        let gainDecibels = measured.isFinite ? min(Self.maximumGainDecibels, plan.master.loudnessLUFS - measured) : 0
        let gain = Float(decibelsToGain(gainDecibels))

        // Pass 2: mixing, the gain and the limiter on one thread; measuring and encoding on this one
        // (or all of it on this one). A lossy format keeps a codec headroom under the ceiling; a
        // lossy file is decoded back and, when it breaks the ceiling or misses the target, written
        // again with what was measured taken into account.
        let lossy = DecodedCheck.headroomDecibels(format, rate: plan.rate) > 0
        var headroom = DecodedCheck.headroomDecibels(format, rate: plan.rate)
        var correction = 0.0
        var writer = firstWriter
        var attempt = 0
        var producer: Handoff<PassTwoProducer>
        var decoded: DecodedFigures?
        while true {
            // A lossy file is measured as it decodes, so what goes into the encoder need not be.
            // An OGG file is decoded as it is written, on its own thread; other lossy files are
            // read back once written.
            let checked = lossy && writer.temporaryPath != nil
            let live = checked ? try writer.vorbisEncoder.map { try LiveVorbisCheck(encoder: $0, totalFrames: total) } : nil
            defer { live?.stop() }
            let limiter = TruePeakLimiter(channels: channels, rate: plan.rate, ceilingDecibels: plan.master.truePeakDBTP - headroom)
            producer = Handoff(try PassTwoProducer(plan: plan, assets: assets, gain: gain * Float(decibelsToGain(correction)), limiter: limiter,
                                                   measuresOutput: !checked))
            let pipeline = BlockPipeline(depth: parallel ? 8 : 1, samplesPerBlock: Renderer.blockFrames * channels)
            var written: Int64 = 0
            let pass = producer
            try pipeline.run(onOwnThread: parallel, produce: { block in pass.value.next(into: &block) }) { block in
                let start = block.samples + block.offset * channels
                try writer.write(start, frameCount: block.frames)
                written += Int64(block.frames)
                weighted?(RenderProgress(pass: 2, framesDone: written, totalFrames: total))
            }
            try writer.finish()
            if let error = producer.value.failure { throw error }
            guard lossy, let file = writer.temporaryPath else { break }
            let measured: DecodedFigures
            if let live {
                measured = try live.finish()
            } else {
                weighted?(RenderProgress(pass: 3, framesDone: 0, totalFrames: total))
                measured = try DecodedCheck.measure(fileAt: file, playbackRate: DecodedCheck.playbackRate(format))
                weighted?(RenderProgress(pass: 3, framesDone: total, totalFrames: total))
            }
            decoded = measured
            let over = measured.truePeak - plan.master.truePeakDBTP
            let off = plan.master.loudnessLUFS - measured.loudness
            let loudnessMissed = measured.loudness.isFinite && abs(off) > DecodedCheck.loudnessTolerance
            guard attempt < DecodedCheck.maximumRetries, over > 0 || loudnessMissed else { break }
            attempt += 1
            if over > 0 { headroom += over + 0.3 }
            if loudnessMissed { correction += min(off, Self.maximumGainDecibels - gainDecibels - correction) }
            writer = try makeWriter()
        }
        let outputMeter = producer.value.meter, truePeak = producer.value.truePeak
        let peak = decoded?.samplePeak ?? producer.value.samplePeak
        let loudness = try decoded?.loudness ?? outputMeter.integratedLoudness()
        let range = try decoded?.range ?? outputMeter.loudnessRange()
        let truePeakDecibels = decoded?.truePeak ?? (truePeak.peak > 0 ? truePeak.peakDecibels : -.infinity)
        var notes = sounds.warnings + plan.notes
        // The gain reaches the target unless the limiter or the gain's cap holds the mix down.
        let target = plan.master.loudnessLUFS
        if !loudness.isFinite {
            notes.append(String(format: "the mix is below -70 LUFS, too quiet to measure, so it was not raised to the target %.1f LUFS; make its sounds or cues louder", target))
        } else if target - loudness > 0.5 {
            let cause = gainDecibels >= Self.maximumGainDecibels
                ? String(format: "the mix is too quiet to raise further (the gain stops at +%.0f dB)", Self.maximumGainDecibels)
                : String(format: "the true-peak ceiling (%.1f dBTP) holds it down; lower --loudness or raise --true-peak",
                         plan.master.truePeakDBTP)
            notes.append(String(format: "the output is %.1f LUFS, %.1f LU under the target %.1f LUFS: ", loudness, target - loudness, target)
                + cause)
        }
        try writeStems(stems, assets: assets, gain: gain * Float(decibelsToGain(correction)))

        // All done: into place, the audio first, holding the folders' locks so that another render
        // into the same places puts its set in place before or after this one, never between.
        let places = ((destination.filePath.map { [$0] } ?? []) + stems.map(\.writer.path) + cueSheetPaths)
            .filter { !StreamOutput.isStream($0) }
            .map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        try FolderLock.withLock(on: places) {
            try writer.commit()
            for stem in stems { try stem.writer.commit() }
            for sheet in cueSheets { try sheet.commit() }
        }
        return RenderReport(
            output: destination.name, rate: plan.rate, channels: channels, frames: total,
            durationSeconds: Double(total) / Double(plan.rate), cycles: plan.schedule.cycleCount,
            measuredLoudnessLUFS: measured.isFinite ? measured : nil, gainDecibels: gainDecibels + correction,
            loudnessLUFS: loudness.isFinite ? loudness : nil,
            loudnessRangeLU: range.isFinite ? range : nil,
            truePeakDBTP: truePeakDecibels.isFinite ? truePeakDecibels : nil, stems: stems.map(\.writer.path), warnings: notes,
            samplePeakDBFS: peak > 0 ? gainToDecibels(Double(peak)) : nil,
            limiterReductionDecibels: -gainToDecibels(Double(producer.value.limiter.deepestGain)))
    }

    /// The tags of the output: the session's metadata (or its name), the sounds' credits, the sections.
    func outputTags(plan: RenderPlan) -> OutputTags {
        let m = session.metadata
        return OutputTags(title: m.title ?? session.name, artist: m.artist, album: m.album, date: m.date,
                          comment: m.comment ?? session.description, credits: sounds.credits(for: plan.soundsUsed),
                          chapters: plan.sections)
    }
}
