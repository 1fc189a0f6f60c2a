import Foundation
import MedrenderCore
import MedrenderIO

/// Every file one render writes: the audio, its cue sheets and its stems. Each is written beside
/// its place (or, for a pipe, a device or a caller's sink, as a stream) and `commit()` puts them in
/// place, the audio first, holding the folders' locks, so another render into the same places puts
/// its set in place before or after this one, never between.
///
/// What it promises: a render that fails or is interrupted before `commit()` changes none of the
/// files (their temporary files are removed). What it cannot: `commit()` renames one file after
/// another, so a crash or a full disk between two renames leaves the earlier outputs new and the
/// later ones as they were; and a stream has already been sent as it went.
final class OutputSet {
    let job: RenderJob
    let prepared: PreparedRender
    let destination: RenderDestination
    /// The part of the session written (`RenderJob.part`); nil for the whole.
    let frames: Range<Int64>?
    /// The audio being written; `reopenAudio()` starts it again (a lossy file written again), with
    /// the stems, which are written beside it.
    private(set) var audio: OutputWriter
    private let cueSheets: [AtomicOutputFile]
    private(set) var stems: [WritePass.Stem]

    /// Opens every output first, so a folder that cannot take one fails before any mixing.
    init(job: RenderJob, prepared: PreparedRender, destination: RenderDestination, frames: Range<Int64>? = nil) throws {
        self.job = job
        self.prepared = prepared
        self.destination = destination
        self.frames = frames
        let plan = prepared.plan
        if frames != nil, !job.cueSheetPaths.isEmpty || job.stemsDirectory != nil {
            throw ParameterError("start", "renders a part of the session alone, and its cue sheet and stems are the whole session's; "
                + "write those in a render without {start} and {end}")
        }
        try job.checkOutputs(job.outputPaths(to: destination, layers: plan.stemLayers))
        audio = try Self.openAudio(job: job, prepared: prepared, destination: destination, frames: frames)
        cueSheets = try job.cueSheetPaths.map { path throws(IOError) in try CueSheetWriter.prepare(plan, to: path) }
        stems = try Self.openStems(job: job, prepared: prepared, destination: destination)
    }

    /// A writer for each layer's stem, when the job asks for stems.
    private static func openStems(job: RenderJob, prepared: PreparedRender, destination: RenderDestination) throws -> [WritePass.Stem] {
        guard job.stemsDirectory != nil else { return [] }
        let plan = prepared.plan
        return try Layer.allCases.filter(plan.stemLayers.contains).map { layer in
            let layerPlan = plan.restricted(to: [layer])
            var tags = prepared.tags
            tags.title += " (\(layer.rawValue))"
            let writer = try OutputWriter(format: job.format, path: job.stemPath(to: destination, layer: layer), plan: layerPlan,
                                          tags: tags, seed: job.session.seed, blockFrames: Renderer.blockFrames,
                                          vorbisThreads: job.vorbisThreads)
            return WritePass.Stem(layer: layer, plan: layerPlan, writer: writer)
        }
    }

    private static func openAudio(job: RenderJob, prepared: PreparedRender, destination: RenderDestination,
                                  frames: Range<Int64>?) throws -> OutputWriter {
        let (format, plan, seed, block) = (job.format, prepared.plan, job.session.seed, Renderer.blockFrames)
        let tags = frames.map { prepared.tags.within($0, start: job.part!.start) } ?? prepared.tags
        let threads = job.vorbisThreads
        switch destination {
        case .file(let path):
            return try OutputWriter(format: format, path: path, plan: plan, tags: tags, seed: seed, blockFrames: block,
                                    vorbisThreads: threads, frames: frames)
        case .standardOutput:
            return try OutputWriter(format: format, path: OutputWriter.standardOutput, plan: plan, tags: tags, seed: seed, blockFrames: block,
                                    vorbisThreads: threads, frames: frames)
        case .sink(let sink):
            return try OutputWriter(format: format, path: NSTemporaryDirectory() + "/medrender-stream.\(format.fileExtension)",
                                    stream: RenderSinkAdapter(sink), plan: plan, tags: tags, seed: seed, blockFrames: block,
                                    vorbisThreads: threads, frames: frames)
        }
    }

    /// Starts the audio and the stems again, from empty files.
    func reopenAudio() throws {
        audio = try Self.openAudio(job: job, prepared: prepared, destination: destination, frames: frames)
        if !stems.isEmpty { stems = try Self.openStems(job: job, prepared: prepared, destination: destination) }
    }

    /// Puts every output in place, the audio first.
    func commit() throws {
        let places = ((destination.filePath.map { [$0] } ?? []) + stems.map(\.writer.path) + job.cueSheetPaths)
            .filter { !StreamOutput.isStream($0) }
            .map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        try FolderLock.withLock(on: places) {
            try audio.commit()
            for stem in stems { try stem.writer.commit() }
            for sheet in cueSheets { try sheet.commit() }
        }
    }
}
