import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// What to render: a session with its sounds, the options and the format, and what goes beside
/// the audio (cue sheets, stems); what an app or a server embeds. It knows no preset library, no
/// command line and no exit code: its sounds are found (`PresetLibrary.resolveSounds`) and its
/// speech synthesized (`GuideSpeech.prepare`) before it runs, and its errors carry a category. It
/// is prepared once (`prepare`) and the result runs as many times, to as many places, as asked.
public struct RenderJob: Sendable {
    public var session: Session { didSet { fittedStage = nil } }
    /// Every sound the session needs, found and credited.
    public var sounds: ResolvedSounds
    public var options: RenderOptions { didSet { fittedStage = nil } }
    /// The session fitted to the length (`fit()`), kept until the session or the options change.
    private var fittedStage: FittedSession?
    public var format: OutputFormat
    /// What messages call the session's source (its preset file, or its name).
    public var origin: String
    /// Cue sheets to write beside the audio (`.json`, `.vtt`, `.txt`), put in place with it.
    public var cueSheetPaths: [String] = []
    /// Only this part of the session, at the whole's loudness (no cue sheets or stems then).
    public var part: SessionPart?
    /// When set, each layer is also written to this folder as its own file, aligned to the mix.
    public var stemsDirectory: String?
    /// Sounds already decoded and resampled, shared by the renders of a build or a server.
    public var soundCache: SoundCache?
    /// Measured loudness of mixes already rendered: a render of the same mix (the same session,
    /// options and sound files, in any format) skips pass 1.
    public var loudnessCache: LoudnessCache?
    /// Where the waveform of the file written is recorded (a build's preview pages draw it), by
    /// its path; nil, the default: none is kept.
    public var waveforms: WaveformStore?
    /// The cores the render may keep busy. With 2 or more, the sounds load side by side (as many
    /// at once as there are cores), pass 1's two pairs of parts and the limited pass's parts run
    /// side by side, pass 2 mixes on one thread while it encodes on another, and an OGG is encoded
    /// in pieces on `threads` threads at once (`PiecedVorbisEncoder`); with 1, all of it runs on
    /// the calling thread but an OGG's decode check, which has a thread of its own
    /// (`LiveVorbisCheck`), and an OGG is encoded by one encoder (see `oggInPieces`). The mix is
    /// the same either way.
    public var threads = 2
    /// Seconds a speech engine may take to speak one line of the script, above 0, default 120
    /// (`SpeechSynthesizer.timeLimitSeconds`).
    public var speechTimeLimitSeconds = SpeechSynthesizer.defaultTimeLimitSeconds
    /// How an OGG is encoded: in pieces on `threads` threads (`PiecedVorbisEncoder`: the same
    /// bytes for any number of threads, 1 included), or by one encoder (`VorbisEncoder`: no scout,
    /// no pre-roll, one encoder started; other bytes, as valid). nil, the default: in pieces with
    /// 2 threads or more, by one encoder with 1. A build encodes every render by one encoder, so
    /// that its bytes never depend on how its jobs were shared out.
    public var oggInPieces: Bool?
    /// Given, once an OGG is written, where its pieces met (frames at the splices) and how many
    /// Vorbis encoders it started.
    var vorbisObserver: (@Sendable (_ splices: [Int64], _ encoders: Int) -> Void)?
    /// Given, once an OGG is written, what its check found, and the output's loudness as it went
    /// into the encoder: with it set, every packet is decoded and, beside, only those a selective
    /// check picks (at any rate), to compare the two.
    var decodeAudit: (@Sendable (_ check: LiveVorbisCheck.Outcome, _ encodedLoudness: Double) -> Void)?
    /// The threads an OGG's pieces are encoded on; nil for one encoder.
    var vorbisThreads: Int? { oggInPieces ?? (threads > 1) ? max(1, threads) : nil }
    /// The name a stream's stems take (the output file's name otherwise).
    var streamName: String { session.name }

    public init(session: Session, sounds: ResolvedSounds, options: RenderOptions, format: OutputFormat, origin: String) {
        self.session = session
        self.sounds = sounds
        self.options = options
        self.format = format
        self.origin = origin
    }

    /// The fit stage: the session as it plays at the length asked for (`FittedSession`), made
    /// once and kept for the job's outline, its sounds and its plan (made again only after the
    /// session or the options change).
    public mutating func fit() {
        if fittedStage == nil { fittedStage = FittedSession(session, options: options) }
    }

    /// The session fitted: the one `fit()` kept, or fitted now for a job never fitted.
    public var fitted: FittedSession { fittedStage ?? FittedSession(session, options: options) }

    /// The plan without any sound loaded: enough for a cue sheet's breath phases, not for clips.
    public func schedulePlan() throws(RenderError) -> RenderPlan {
        do {
            return try RenderPlan(fitted: fitted, sounds: nil)
        } catch {
            throw RenderError.plan(error, preset: origin)
        }
    }

    /// How long the session lasts and what its fit changed, without making a plan (`PlanOutline`).
    public func outline() throws(RenderError) -> PlanOutline {
        do {
            return try PlanOutline(fitted: fitted)
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

    /// Pass 1, or the loudness cache's measure of the same mix. A session levelled on its voice
    /// into an output that needs no more than its gain (`voiceAlone`: a lossy output measured as
    /// it decodes and written again when it misses, not the mix's peak) has its voice measured
    /// alone (`LoudnessPass.measureVoice`): the same gain, without mixing the session.
    private func measure(_ prepared: PreparedRender, voiceAlone: Bool, parallel: Bool, progress: ((RenderProgress) -> Void)?,
                         stopped: (@Sendable () -> Bool)?) throws -> LoudnessPass.Measure {
        let key = LoudnessCache.Key(job: self)
        if let known = loudnessCache?.measured(key), known.wholeMix || voiceAlone { return known }
        let voice = voiceAlone ? LoudnessPass.measureVoice(prepared, parallel: parallel, progress: progress, stopped: stopped) : nil
        let mix = voice ?? LoudnessPass.measure(prepared, parallel: parallel, progress: progress, stopped: stopped)
        if let stopped, stopped() { throw RenderCancelled() }
        loudnessCache?.record(mix, for: key)
        return mix
    }

    /// The mix's integrated loudness before the gain, for the report: pass 1's; where pass 1
    /// measured the voice alone, what pass 2 measured before encoding less the gain when its
    /// limiter never acted (the output is then the mix times the gain), else unknown (nil).
    static func mixLoudness(_ mix: LoudnessPass.Measure, written figures: WritePass.Figures, gainDecibels: Double) -> Double? {
        var loudness = mix.loudness
        if !mix.wholeMix {
            loudness = figures.deepestGain == 1 ? (figures.meter?.integratedLoudness ?? -.infinity) - gainDecibels : -.infinity
        }
        return loudness.isFinite ? loudness : nil
    }

    /// The most the loudness gain raises a quiet mix, in dB.
    static let maximumGainDecibels = 60.0

    /// Prepares the render and writes it to `destination`; see `run(_:to:progress:)`.
    public func run(to destination: RenderDestination,
                    progress: (@Sendable (RenderProgress) -> Void)? = nil) throws -> RenderReport {
        try run(prepare(), to: destination, progress: progress)
    }

    /// Stage 3: writes a prepared render to `destination` (and the cue sheets and stems) and
    /// reports what it wrote. It mixes the session:
    ///
    /// - once to measure it before the gain (pass 1, `LoudnessPass`), unless `loudnessCache`
    ///   holds the same mix's measure, or the output is a lossy one written into a temporary file
    ///   and the session is levelled on its voice (only the voice is measured then);
    /// - for an output written once (a WAV or FLAC file or stream, an OGG streamed as it is
    ///   encoded): 1 to 3 times more to measure it through the gain and the limiter
    ///   (`LimitedLoudnessPass`), only when the gain takes pass 1's largest sample more than 1 dB
    ///   over the limiter's ceiling; then once to write it (pass 2, `WritePass`). 2 to 5 times
    ///   with pass 1;
    /// - for a lossy output written into a temporary file (an OGG, Opus or MP3 file; an Opus or
    ///   MP3 stream, or an OGG one under 44.1 kHz, sent once done): once to write it, measured as
    ///   it decodes; again, at most 3 times, while it decodes over the ceiling or more than
    ///   0.45 LU off the target; and once more, as the write that held the ceiling closest to the
    ///   target, when it is still over then (`LossyRetryPolicy`). 2 to 6 times with pass 1, 1 to 5
    ///   without;
    ///
    /// The stems are written beside the mix in each write, following its limiter's gains
    /// (`WritePass`): they add no mix.
    ///
    /// Then every file is put in place together (`OutputSet`): a render that fails before then
    /// changes none of them (a stream has been sent as it went).
    public func run(_ prepared: PreparedRender, to destination: RenderDestination,
                    progress: (@Sendable (RenderProgress) -> Void)? = nil) throws -> RenderReport {
        let plan = prepared.plan
        let frames = try part?.frames(in: plan)
        let outputs = try OutputSet(job: self, prepared: prepared, destination: destination, frames: frames)
        let written = frames ?? 0..<plan.totalFrames
        let headroom = DecodedCheck.headroomDecibels(format, rate: plan.rate)
        let lossy = headroom > 0
        let weights = PassWeights.forFormat(format, checked: lossy && outputs.audio.temporaryPath != nil)
        let weighted = progress.map { progress in
            { @Sendable (report: RenderProgress) in
                var report = report
                report.weights = weights
                progress(report)
            }
        }
        let parallel = threads > 1
        // A stream's reader that has gone stops the render at its next block.
        let stopped: (@Sendable () -> Bool)? = {
            guard case .sink(let sink) = destination else { return nil }
            return { sink.isStopped }
        }()

        // A WAV, a FLAC and an OGG streamed as it is encoded are written once: what the limiter
        // will take off their loudness is measured first. A lossy output written into a temporary
        // file (any lossy file; an Opus, MP3 or sub-44.1-kHz OGG stream) is measured as it decodes
        // and written again when it misses instead; but not a part, whose own loudness is not
        // the target's (the whole's is).
        let rewritable = lossy && outputs.audio.temporaryPath != nil && frames == nil
        // Pass 1: of the voice alone for a rewritable output of a session levelled on its voice.
        let mix = try measure(prepared, voiceAlone: rewritable, parallel: parallel, progress: weighted, stopped: stopped)
        let gainDecibels = try LimitedLoudnessPass.gainDecibels(prepared, mix: mix, ceilingDecibels: plan.master.truePeakDBTP - headroom,
                                                                limited: !rewritable, parallel: parallel, stopped: stopped)

        // Pass 2: a lossy output written into a temporary file is measured as it decodes (an OGG
        // as it is written, on its own thread; Opus and MP3 read back once written), so what goes
        // into it need not be. An OGG streamed as it is encoded is measured as it decodes too, so
        // that its report says what a listener gets, though it cannot be written again.
        var policy = LossyRetryPolicy(ceilingDBTP: plan.master.truePeakDBTP, targetLUFS: plan.master.loudnessLUFS,
                                      gainDecibels: gainDecibels, headroomDecibels: headroom)
        var figures: WritePass.Figures
        var decoded: DecodedFigures?
        // The share of an OGG's packets its check decoded.
        var share: Double?
        let selective = DecodedCheck.decodesSelectively(format, rate: plan.rate)
        while true {
            let writer = outputs.audio
            let checked = lossy && writer.temporaryPath != nil
            let live = lossy ? try writer.vorbisEncoder.map { try Self.check($0, plan: plan, frames: Int64(written.count), selective: selective,
                                                                               audit: decodeAudit != nil) } : nil
            defer { live?.check.stop() }
            // Measured here unless the file is measured as it decodes, loudness and all.
            let measuresOutput = live.map { $0.peaks != nil } ?? !checked
            figures = try WritePass.run(prepared, into: writer, stems: outputs.stems, gain: Float(decibelsToGain(gainDecibels + policy.correctionDecibels)),
                                        ceilingDecibels: policy.limiterCeilingDecibels, frames: written, measuresOutput: measuresOutput,
                                        measuresSpeech: mix.levelsSpeech, stretchPeaks: live?.peaks,
                                        waveform: waveforms == nil || frames != nil ? nil
                                            : WaveformEnvelope(frames: plan.totalFrames, channels: plan.channels),
                                        parallel: parallel, progress: weighted,
                                        stopped: stopped)
            vorbisObserver?(writer.vorbisSplices, writer.vorbisEncoders)
            if let live {
                let outcome = try live.check.finish()
                decodeAudit?(outcome, figures.meter?.integratedLoudness ?? -.infinity)
                decoded = Self.decodedFigures(outcome, written: figures)
                share = outcome.selective.map { Double($0.packets.decoded) / Double(max(1, $0.packets.of)) } ?? 1
            }
            guard checked, let file = writer.temporaryPath else { break }
            if live == nil {
                weighted?(RenderProgress(pass: 3, framesDone: 0, totalFrames: plan.totalFrames))
                decoded = try DecodedCheck.measure(fileAt: file, playbackRate: DecodedCheck.playbackRate(format), stopped: stopped)
                weighted?(RenderProgress(pass: 3, framesDone: plan.totalFrames, totalFrames: plan.totalFrames))
            }
            // A session levelled on its voice is held to the target by the voice's loudness as
            // written (the decoded file is one mix: its voice cannot be measured apart), the
            // ceiling by the file's peaks.
            var judged = decoded!
            if mix.levelsSpeech, let speech = figures.speechLoudness, speech.isFinite { judged.loudness = speech }
            guard rewritable, policy.retry(after: judged) else { break }
            try outputs.reopenAudio()
        }
        try outputs.commit()
        if let waveform = figures.waveform, case .file(let path) = destination { waveforms?.record(waveform, for: path) }

        let loudness = decoded?.loudness ?? figures.meter?.integratedLoudness ?? -.infinity
        let range = decoded?.range ?? figures.meter?.loudnessRange ?? -.infinity
        let truePeak = decoded?.truePeak ?? (figures.truePeak.peak > 0 ? figures.truePeak.peakDecibels : -.infinity)
        let peak = decoded?.samplePeak ?? figures.samplePeak
        return RenderReport(
            output: destination.name, rate: plan.rate, channels: plan.channels, frames: Int64(written.count),
            durationSeconds: Double(written.count) / Double(plan.rate), cycles: plan.schedule.cycleCount,
            measuredLoudnessLUFS: Self.mixLoudness(mix, written: figures, gainDecibels: gainDecibels + policy.correctionDecibels),
            gainDecibels: gainDecibels + policy.correctionDecibels,
            loudnessLUFS: loudness.isFinite ? loudness : nil, speechLoudnessLUFS: figures.speechLoudness.flatMap { $0.isFinite ? $0 : nil },
            loudnessRangeLU: range.isFinite ? range : nil,
            truePeakDBTP: truePeak.isFinite ? truePeak : nil, stems: outputs.stems.map(\.writer.path),
            // A part's loudness is its own, not the target (the whole's is).
            warnings: prepared.warnings
                + (frames == nil ? Self.loudnessNotes(loudness: figures.speechLoudness ?? loudness, plan: plan, gainDecibels: gainDecibels) : [])
                + Self.streamNotes(truePeak: rewritable || !lossy ? nil : decoded?.truePeak, plan: plan)
                + Self.overNotes(truePeak: rewritable ? decoded?.truePeak : nil, plan: plan, retries: policy.retries),
            samplePeakDBFS: peak > 0 ? gainToDecibels(Double(peak)) : nil,
            limiterReductionDecibels: -gainToDecibels(Double(figures.deepestGain)), voice: plan.guide.speaker,
            decodedPacketShare: share)
    }

    /// An OGG's check, and the stretch peaks it picks packets by (none when it decodes every one).
    static func check(_ encoder: any VorbisPacketSource, plan: RenderPlan, frames: Int64, selective: Bool,
                      audit: Bool) throws -> (check: LiveVorbisCheck, peaks: StretchPeaks?) {
        let peaks = selective || audit ? StretchPeaks(channels: plan.channels) : nil
        let check = try LiveVorbisCheck(encoder: encoder, totalFrames: frames, whole: !selective || audit, peaks: peaks,
                                        marginDecibels: DecodedCheck.selectionMarginDecibels)
        return (check, peaks)
    }

    /// The loudness of an OGG as decoded, from the loudness that went into its encoder and what
    /// a selective check found the codec did to it.
    static func decodedLoudness(encoded: Double, _ picked: SelectiveDecode.Figures) -> Double {
        encoded + (picked.energies.shift(gatedUnder: encoded) ?? 0)
    }

    /// What an OGG decodes to: the whole decode's figures, or the peaks of the packets its check
    /// picked with the loudness of what went into the encoder moved as the codec moved it in them.
    static func decodedFigures(_ outcome: LiveVorbisCheck.Outcome, written: WritePass.Figures) -> DecodedFigures? {
        if let whole = outcome.whole { return whole }
        guard let picked = outcome.selective, let meter = written.meter else { return nil }
        return DecodedFigures(loudness: decodedLoudness(encoded: meter.integratedLoudness, picked), range: meter.loudnessRange,
                              truePeak: picked.peaks.true, samplePeak: picked.peaks.sample)
    }

    /// What the report says of an OGG streamed as it is encoded that decodes over the ceiling: it
    /// cannot be written again, as a file is.
    static func streamNotes(truePeak: Double?, plan: RenderPlan) -> [String] {
        guard let truePeak, truePeak > plan.master.truePeakDBTP + 0.05 else { return [] }
        return [String(format: "the stream decodes to %.1f dBTP, over the ceiling %.1f dBTP, and a stream cannot be written again; "
                       + "write a file (checked as it decodes, and written again when it goes over) or lower the true-peak ceiling",
                       truePeak, plan.master.truePeakDBTP)]
    }

    /// What the report says of a lossy file still over the ceiling as it decodes once it has been
    /// written again as often as it may be.
    static func overNotes(truePeak: Double?, plan: RenderPlan, retries: Int) -> [String] {
        guard let truePeak, truePeak > plan.master.truePeakDBTP + 0.05 else { return [] }
        return [String(format: "the file decodes to %.1f dBTP, over the ceiling %.1f dBTP, after it was written %d times; "
                       + "lower the loudness target, raise the rate or the quality, or write a WAV or FLAC",
                       truePeak, plan.master.truePeakDBTP, retries + 1)]
    }

    /// What the report says when the output misses its target: the gain reaches it unless the
    /// limiter or the gain's cap holds the mix down.
    static func loudnessNotes(loudness: Double, plan: RenderPlan, gainDecibels: Double) -> [String] {
        let target = plan.master.loudnessLUFS
        if !loudness.isFinite {
            return [String(format: "the mix is below -70 LUFS, too quiet to measure, so it was not raised to the target %.1f LUFS; make its sounds or cues louder", target)]
        }
        guard target - loudness > 0.5 else { return [] }
        let cause = gainDecibels >= maximumGainDecibels
            ? String(format: "the mix is too quiet to raise further (the gain stops at +%.0f dB)", maximumGainDecibels)
            : String(format: "the true-peak ceiling (%.1f dBTP) holds it down; lower the loudness target or raise the ceiling", plan.master.truePeakDBTP)
        return [String(format: "the output is %.1f LUFS, %.1f LU under the target %.1f LUFS: ", loudness, target - loudness, target) + cause]
    }
}
