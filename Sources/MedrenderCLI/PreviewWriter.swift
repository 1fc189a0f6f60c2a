import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPreview

/// Writes preview pages and plots for the commands that make them: the timeline from the plan,
/// the waveform from the audio written, the file put in place atomically.
enum PreviewWriter {
    /// Slices of the waveform's envelope: two per unit of the plot's default width.
    static let envelopeSlices = WaveformEnvelope.previewSlices

    /// The peak of each of `slices` equal slices of the sound file at `path`, read block by block
    /// (a long session is never held in memory): what a render records as it writes
    /// (`WaveformEnvelope`), read from the file.
    static func envelope(of path: String, slices: Int = envelopeSlices) throws -> [Float] {
        let reader = try SoundFileReader(path: path)
        let frames = reader.frameCount, channels = reader.channels
        guard frames > 0, slices > 0 else { return [] }
        let envelope = WaveformEnvelope(slices: slices, frames: frames, channels: channels)
        let blockFrames = 65536
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < frames {
            let got = try reader.read(into: buffer, frameCount: blockFrames)
            if got <= 0 { break }
            envelope.add(buffer, frameCount: got)
            position += Int64(got)
        }
        return envelope.peaks
    }

    /// A line under the page's title: the preset, its pattern, the length and what was measured.
    static func subtitle(session: Session, plan: RenderPlan, loudnessLUFS: Double?, truePeakDBTP: Double?) -> String {
        var parts = [session.name, session.segments.map { $0.pattern.description }.joined(separator: " → "),
                     "\(plan.schedule.cycleCount) cycles"]
        if let loudnessLUFS { parts.append(String(format: "%.1f LUFS", loudnessLUFS)) }
        if let truePeakDBTP { parts.append(String(format: "true peak %.1f dBTP", truePeakDBTP)) }
        return parts.joined(separator: " · ")
    }

    /// `path` relative to the folder of `page`, when it is in that folder or below it.
    static func relative(_ path: String, toPageAt page: String) -> String? {
        let folder = URL(fileURLWithPath: FilePaths.resolved(page)).deletingLastPathComponent().path
        let target = FilePaths.resolved(path)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard target.hasPrefix(prefix) else { return nil }
        return String(target.dropFirst(prefix.count)).split(separator: "/").map {
            String($0).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0)
        }.joined(separator: "/")
    }

    /// Writes the preview page of `plan` to `page`: the audio at `audioPath` named beside it when
    /// `embed` is false and it lies in the page's folder, else embedded.
    /// (The page's file is created before the render, so a page that cannot be written fails first.)
    static func writePage(_ file: AtomicOutputFile, plan: RenderPlan, session: Session, report: RenderReport?,
                          audioPath: String, format: OutputFormat, embed: Bool, waveform: [Float]? = nil) throws {
        try writePage(file, plan: plan, session: session, loudnessLUFS: report?.loudnessLUFS, truePeakDBTP: report?.truePeakDBTP,
                      audioPath: audioPath, format: format, embed: embed, waveform: waveform)
    }

    /// `waveform`: the audio's as it was written (`WaveformStore`), else read from the file.
    static func writePage(_ file: AtomicOutputFile, plan: RenderPlan, session: Session, loudnessLUFS: Double?, truePeakDBTP: Double?,
                          audioPath: String, format: OutputFormat, embed: Bool, waveform: [Float]? = nil) throws {
        let page = file.path
        let envelope = try waveform ?? envelope(of: audioPath)
        let timeline = SessionTimeline(plan: plan, title: session.name, envelope: envelope)
        let audio: PreviewPage.Audio
        if !embed, let name = relative(audioPath, toPageAt: page) {
            audio = .url(name)
        } else {
            guard let bytes = FileManager.default.contents(atPath: audioPath) else {
                throw IOError(.io, "cannot read the audio back to embed it in the page", path: audioPath)
            }
            audio = .embedded(bytes: Array(bytes), mimeType: PreviewPage.mimeType(forExtension: format.fileExtension))
        }
        let html = PreviewPage(timeline: timeline, audio: audio, subtitle: subtitle(session: session, plan: plan, loudnessLUFS: loudnessLUFS, truePeakDBTP: truePeakDBTP)).html
        try file.write(Array(html.utf8))
        try file.commit()
    }

    /// Writes `text` to `path` atomically.
    static func writeText(_ text: String, to path: String) throws {
        let file = try AtomicOutputFile(path: path)
        try file.write(Array(text.utf8))
        try file.commit()
    }

    /// A temporary file for audio that only feeds a page or a plot, removed by the caller.
    static func temporaryAudioPath(extension ext: String) -> String {
        "\(FileManager.default.temporaryDirectory.path)/medrender-preview-\(UUID().uuidString.prefix(12)).\(ext)"
    }
}
