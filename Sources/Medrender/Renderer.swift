import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A render asked for by preset file and output path, as the command line and a build ask: the
/// preset library finds its sounds, and it becomes a `RenderJob`.
public struct RenderRequest: Sendable {
    public var session: Session
    /// The preset file the session came from, for messages and for sounds named relative to it.
    public var presetFile: String
    public var options: RenderOptions
    public var format: OutputFormat
    /// Where the audio goes: a file (or a pipe or device), standard output, or a sink.
    public var destination: RenderDestination
    public var library: PresetLibrary
    /// When set, each layer is also written to this folder as its own file, aligned to the mix.
    public var stemsDirectory: String?
    /// Replace a missing sound with the bundled sound of the same role (`--fallback stock`).
    public var stockFallback = false
    /// Sounds already decoded and resampled, shared by the renders of one build.
    public var soundCache: SoundCache?
    /// Mixes already measured (pass 1), shared by the renders of one build: the same session in
    /// another format starts writing at once.
    public var loudnessCache: LoudnessCache?
    /// Where the waveform of the file written is recorded (see `RenderJob.waveforms`).
    public var waveforms: WaveformStore?
    /// Cue sheets to write beside the audio (`.json`, `.vtt`, `.txt`), put in place with it.
    public var cueSheetPaths: [String] = []
    /// Only this part of the session (`RenderJob.part`).
    public var part: SessionPart?
    /// The cores the render may keep busy (see `RenderJob.threads`).
    public var threads = 2
    /// How an OGG is encoded, in pieces or by one encoder (see `RenderJob.oggInPieces`).
    public var oggInPieces: Bool?
    /// Seconds a speech engine may take to speak one line (see `RenderJob.speechTimeLimitSeconds`).
    public var speechTimeLimitSeconds = SpeechSynthesizer.defaultTimeLimitSeconds

    public init(session: Session, presetFile: String, options: RenderOptions, format: OutputFormat,
                destination: RenderDestination, library: PresetLibrary, stemsDirectory: String? = nil) {
        self.stemsDirectory = stemsDirectory
        self.session = session
        self.presetFile = presetFile
        self.options = options
        self.format = format
        self.destination = destination
        self.library = library
    }

    /// The job: the session with every sound it needs found in the library (all the missing ones
    /// reported at once).
    public func job() throws -> RenderJob {
        var job = RenderJob(session: session, sounds: ResolvedSounds(), options: options, format: format, origin: presetFile)
        job.fit()
        // Every sound the session names for these layers and this length, found (the missing ones
        // reported at once) without planning: the render plans once, when they are decoded.
        job.sounds = try library.resolveSounds(RenderPlan.soundsNamed(job.fitted), for: session,
                                               presetFile: presetFile, stockFallback: stockFallback)
        // A teacher's take is found here and cut into its lines' sounds (`GuideTake`); it is never decoded whole for the mix.
        if let take = session.guide?.recording?.sound {
            job.sounds.sounds.merge(try library.resolveSounds([take], for: session, presetFile: presetFile).sounds) { $1 }
        }
        job.speechTimeLimitSeconds = speechTimeLimitSeconds
        try GuideSpeech.prepare(&job)  // guide: the script's speech synthesized before the plan (Speech/GuideSpeech.swift)
        // The fit is kept for the plan; a script's speech or length changed the session, and it is fitted again.
        job.fit()
        job.cueSheetPaths = cueSheetPaths
        job.part = part
        job.stemsDirectory = stemsDirectory
        job.soundCache = soundCache
        job.loudnessCache = loudnessCache
        job.waveforms = waveforms
        job.threads = threads
        job.oggInPieces = oggInPieces
        return job
    }
}

/// Renders requests: decodes the sounds and plans the session once (`prepare`), mixes the session
/// one to six times (`RenderJob.run`: measure, write, and measure or write again where the output
/// needs it; stems are mixed beside the write and add none), and puts every output file in place
/// together.
public enum Renderer {
    /// Frames per block; the mixer, the master chain and the encoders all work in these.
    public static let blockFrames = 4096

    /// Plans the request without loading any sound: enough for a cue sheet.
    public static func schedulePlan(_ request: RenderRequest) throws(RenderError) -> RenderPlan {
        try RenderJob(session: request.session, sounds: ResolvedSounds(), options: request.options, format: request.format,
                      origin: request.presetFile).schedulePlan()
    }

    /// Stage 1 of a render of `request`: its sounds found, decoded and the session planned with
    /// their lengths (see `PreparedRender`). The plan, the cue sheets and the preview come from it;
    /// `render(_:to:progress:)` writes it without decoding or planning again.
    public static func prepare(_ request: RenderRequest) throws -> PreparedRender {
        try checkedJob(request).prepare()
    }

    /// Everything a render of `request` checks before mixing: the preset, every sound (found,
    /// readable, decoded, not too long) and the plan with the sounds' lengths (clips and prompts
    /// that fit). Returns the plan (`RenderJob.plan()`: nothing kept that only a mix needs).
    public static func check(_ request: RenderRequest) throws -> RenderPlan {
        try checkedJob(request).plan()
    }

    /// The job of `request`, its outputs checked against the files it reads.
    private static func checkedJob(_ request: RenderRequest) throws -> RenderJob {
        let job = try request.job()
        try job.checkOutputs(job.outputPaths(to: request.destination, layers: Set(Layer.allCases)))
        return job
    }

    /// Renders `request` to its output file (and its cue sheets and stems) and reports what it
    /// wrote; see `RenderJob.run`.
    public static func render(_ request: RenderRequest,
                              progress: (@Sendable (RenderProgress) -> Void)? = nil) throws -> RenderReport {
        try render(prepare(request), to: request.destination, progress: progress)
    }

    /// Writes a prepared render to `destination`; see `RenderJob.run(_:to:progress:)`.
    public static func render(_ prepared: PreparedRender, to destination: RenderDestination,
                              progress: (@Sendable (RenderProgress) -> Void)? = nil) throws -> RenderReport {
        try prepared.job.run(prepared, to: destination, progress: progress)
    }
}
