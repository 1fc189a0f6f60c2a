import Foundation
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderPreview

/// A built library's `index.html` (every output with its preset, length, loudness, a player and a
/// link to its preview) and the preview page of each output beside it (`NAME.EXT.html`).
enum BuildIndex {
    /// The preview page's name for an output file: `box-breath-15min.ogg.html`.
    static func previewName(_ file: String) -> String { file + ".html" }

    /// Writes the preview page of each output in `manifest` that has none newer than its audio, and
    /// `index.html`. `presetFiles` maps preset names to their files; `waveforms`, the waveforms of
    /// the outputs this build wrote (any other is read from its file); `sounds`, the sounds it
    /// decoded. Returns the pages written.
    @discardableResult
    static func write(folder: String, manifestPath: String, presetFiles: [String: String], library: PresetLibrary,
                      waveforms: WaveformStore? = nil, sounds: SoundCache? = nil) throws -> Int {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: manifestPath, isDirectory: &isFolder), !isFolder.boolValue,
              FileManager.default.fileExists(atPath: folder) else { return 0 }
        let manifest = try LibraryBuildManifest.read(manifestPath)
        var entries: [LibraryIndexPage.Entry] = []
        var written = 0
        let languages = try? library.languages()
        var presets: [String: Session?] = [:]
        for output in manifest.outputs {
            let audioPath = "\(folder)/\(output.file)"
            guard FileManager.default.fileExists(atPath: audioPath) else { continue }
            let page = previewName(output.file), pagePath = "\(folder)/\(page)"
            var hasPage = FileManager.default.fileExists(atPath: pagePath)
            if !hasPage || modified(pagePath) < modified(audioPath) {
                hasPage = (try? writePreview(output, audioPath: audioPath, pagePath: pagePath, presetFile: presetFiles[output.preset] ?? output.preset,
                                             library: library, waveform: waveforms?.peaks(for: audioPath), sounds: sounds)) != nil
                if hasPage { written += 1 }
            }
            let length = output.cycles.map { "\($0) cycles" } ?? output.minutes.map { $0 == $0.rounded() ? "\(Int($0)) min" : "\($0) min" } ?? ""
            if presets[output.preset] == nil {
                let file = presetFiles[output.preset] ?? (try? library.presetPath(output.preset))
                presets[output.preset] = .some(file.flatMap { try? PresetDecoder.load(path: $0, languages: languages ?? .stock) })
            }
            let session = presets[output.preset] ?? nil
            entries.append(LibraryIndexPage.Entry(
                file: output.file, preset: output.preset, length: length, durationSeconds: Double(output.frames) / Double(output.rate),
                format: output.format, loudnessLUFS: output.loudnessLUFS, truePeakDBTP: output.truePeakDBTP, preview: hasPage ? page : nil,
                title: session.map { BuildFeed.title($0.name) }, description: session?.description))
        }
        try PreviewWriter.writeText(LibraryIndexPage(entries: entries).html, to: "\(folder)/index.html")
        return written
    }

    /// Writes the index and the pages, which help to browse a build but never fail it: a page that
    /// cannot be made is left out of the index, an index that cannot be written is a warning.
    static func writeOrWarn(folder: String, manifestPath: String, presetFiles: [String: String], library: PresetLibrary,
                            waveforms: WaveformStore? = nil, sounds: SoundCache? = nil) {
        do {
            try write(folder: folder, manifestPath: manifestPath, presetFiles: presetFiles, library: library, waveforms: waveforms,
                      sounds: sounds)
        } catch {
            Console.error("medrender: warning: \(folder)/index.html was not written: \((error as? any DiagnosedError)?.description ?? "\(error)")\n")
        }
    }

    static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }

    /// The preview page of one output: the plan a render of it makes (its sounds from `sounds`
    /// when it holds them), its file's waveform (`waveform`, as written, else read from the file).
    static func writePreview(_ output: LibraryBuildManifest.Entry, audioPath: String, pagePath: String, presetFile: String,
                             library: PresetLibrary, waveform: [Float]? = nil, sounds: SoundCache? = nil) throws {
        var parameters = SessionRequest(preset: presetFile)
        parameters.length = try LengthChoice(minutes: output.minutes, cycles: output.cycles)
        parameters.rate = output.rate
        parameters.channels = output.channels
        parameters.format = FormatName(spelled: output.format)
        var (request, _) = try parameters.renderRequest(library: library, destination: .file(audioPath))
        request.soundCache = sounds
        let plan = try Renderer.check(request)
        try PreviewWriter.writePage(try AtomicOutputFile(path: pagePath), plan: plan, session: request.session, loudnessLUFS: output.loudnessLUFS,
                                    truePeakDBTP: output.truePeakDBTP, audioPath: audioPath, format: request.format, embed: false,
                                    waveform: waveform)
    }
}
