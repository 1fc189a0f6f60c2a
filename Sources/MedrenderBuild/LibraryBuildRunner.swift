import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import Synchronization

/// What a build tells its caller as it goes; sent from the worker threads.
public enum LibraryBuildEvent: Sendable {
    /// The plan: the jobs to render (with their frames, for an ETA) and how many are up to date.
    case planned(toRender: [(name: String, frames: Int64)], upToDate: Int)
    case started(output: String)
    /// A render's progress, 0…1 (both passes).
    case progress(output: String, fraction: Double)
    /// A render finished; `warnings` are what it had to work around or could not reach.
    case rendered(output: String, seconds: Double, warnings: [String])
    case failed(LibraryBuildFailure)
    /// Temporary files that a killed run left in the output folder were removed.
    case removedAbandoned(count: Int)
}

/// What a build did, for people and for scripts (`--json`).
public struct LibraryBuildSummary: Codable, Sendable {
    /// The outputs rendered, in the order they finished.
    public var rendered: [String]
    /// The outputs that were up to date, sorted.
    public var skipped: [String]
    public var failed: [LibraryBuildFailure]
    /// The renders' warnings, each as `<output>: <warning>`.
    public var warnings: [String] = []
    public var seconds: Double
    public var manifest: String
    /// What kind of failure ended the build, nil when every output was built.
    public var category: ErrorCategory?
}

extension LibraryBuild {
    /// The manifest entries already known in `folder`, from every `manifest*.json` in it (the
    /// build's own manifest first), by output file name.
    static func knownEntries(in folder: String, ownManifest: String) -> [String: [LibraryBuildManifest.Entry]] {
        var paths = [ownManifest]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for name in names where name.hasPrefix("manifest") && name.hasSuffix(".json") {
            let path = folder + "/" + name
            if path != ownManifest { paths.append(path) }
        }
        var known: [String: [LibraryBuildManifest.Entry]] = [:]
        for path in paths {
            guard let manifest = try? LibraryBuildManifest.read(path) else { continue }
            for entry in manifest.outputs { known[entry.file, default: []].append(entry) }
        }
        return known
    }

    /// The size of a regular file, or nil.
    static func fileSize(_ path: String) -> Int64? { FilePaths.regularFileSize(path) }

    /// Whether `entry` still describes the file in `folder`: it exists with the recorded size, its
    /// cue sheets exist, and (when `verify`) all have the recorded SHA-256.
    static func entryHolds(_ entry: LibraryBuildManifest.Entry, in folder: String, verify: Bool) -> Bool {
        let path = folder + "/" + entry.file
        guard fileSize(path) == entry.bytes else { return false }
        for sheet in entry.cueSheets where fileSize(folder + "/" + sheet) == nil { return false }
        guard verify else { return true }
        let sheets = entry.cueSheets.map { SHA256Hasher.hashFile(at: folder + "/" + $0) ?? "" }
        return SHA256Hasher.hashFile(at: path) == entry.sha256 && entry.cueSheetSHA256 == sheets
    }

    /// Builds: plans, skips what is up to date, renders the rest on `settings.jobs` threads, and
    /// writes the manifest after each finished job. Never throws: each failure is in the summary.
    public static func run(_ settings: LibraryBuildSettings, events: @escaping @Sendable (LibraryBuildEvent) -> Void = { _ in })
        -> LibraryBuildSummary
    {
        let started = Date()
        let folder = settings.outputDirectory
        let manifestPath = settings.manifestPath
        var failures: [LibraryBuildFailure] = []
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            let failure = LibraryBuildFailure(preset: "", output: nil,
                                              error: "\(folder): the output folder cannot be created (\(error.localizedDescription))",
                                              category: .cannotCreate)
            events(.failed(failure))
            return LibraryBuildSummary(rendered: [], skipped: [], failed: [failure], seconds: Date().timeIntervalSince(started),
                                       manifest: manifestPath, category: failure.category)
        }

        let abandoned = removeAbandonedTemporaryFiles(in: folder)
        if abandoned > 0 { events(.removedAbandoned(count: abandoned)) }

        let (jobs, planFailures) = plan(settings)
        failures += planFailures
        for failure in planFailures { events(.failed(failure)) }

        // Up to date: a manifest lists the same inputs hash, and the file is there as recorded.
        let known = knownEntries(in: folder, ownManifest: manifestPath)
        var entries: [String: LibraryBuildManifest.Entry] = [:]
        var skipped: [String] = []
        var toRender: [LibraryBuildJob] = []
        for job in jobs {
            if let entry = known[job.outputName]?.first(where: {
                $0.inputsHash == job.inputsHash && $0.cueSheets == job.cueSheetNames && entryHolds($0, in: folder, verify: settings.verify)
            }) {
                entries[job.outputName] = entry
                skipped.append(job.outputName)
            } else {
                toRender.append(job)
            }
        }
        // The manifest keeps what it listed of outputs outside this build (another --minutes, a
        // preset not named this time) while their files are still there as recorded.
        let jobNames = Set(jobs.map(\.outputName))
        if let previous = try? LibraryBuildManifest.read(manifestPath) {
            for entry in previous.outputs where !jobNames.contains(entry.file) && entries[entry.file] == nil {
                if entryHolds(entry, in: folder, verify: false) { entries[entry.file] = entry }
            }
        }
        events(.planned(toRender: toRender.map { ($0.outputName, $0.totalFrames) }, upToDate: skipped.count))

        let state = SharedState(BuildState(entries: entries, next: 0))
        let base = LibraryBuildManifest(renderer: rendererVersion, shard: settings.shard?.description)
        // Written up front, so a manifest that cannot be written stops the build before any render
        // (what a render did would not be kept for the next build).
        do {
            try writeManifest(base, entries: entries, to: manifestPath, in: folder)
        } catch {
            let failure = LibraryBuildFailure(preset: "", output: nil, error: describe(error), category: category(of: error))
            events(.failed(failure))
            return LibraryBuildSummary(rendered: [], skipped: skipped.sorted(), failed: failures + [failure],
                                       seconds: Date().timeIntervalSince(started), manifest: manifestPath,
                                       category: category(of: failures + [failure]))
        }

        let work = toRender
        // Each sound is decoded and resampled once per build, then shared by every job using it.
        let sounds = settings.sounds ?? SoundCache()
        for job in work { sounds.know(hashes: job.soundHashes) }
        // A session written in several formats is measured once (pass 1), by whichever job comes first.
        let measured = LoudnessCache(capacity: 64)
        let workers = max(1, min(settings.jobs, work.count))
        // -j N is a budget of N cores: each render gets its share, so -j 1 keeps one core busy and
        // a build with fewer jobs than cores lets each render use more than one. The last job
        // also gets two when there are two cores: the other workers are finishing and go idle.
        let threadsPerRender = max(1, settings.jobs / workers)
        let threadsForLast = settings.jobs > 1 ? max(2, threadsPerRender) : 1
        let group = DispatchGroup()
        for _ in 0..<(work.isEmpty ? 0 : workers) {
            group.enter()
            // Rendering keeps its buffers on the heap; a generous stack costs nothing.
            BlockingWork.start("medrender build", stackSize: 8 << 20) {
                while true {
                    let index: Int? = state.withLock { s in
                        guard s.next < work.count else { return nil }
                        defer { s.next += 1 }
                        return s.next
                    }
                    guard let index else { break }
                    let job = work[index]
                    let jobStart = Date()
                    events(.started(output: job.outputName))
                    do {
                        let threads = index == work.count - 1 ? threadsForLast : threadsPerRender
                        let (entry, warnings) = try render(job, into: folder, sounds: sounds, measured: measured, waveforms: settings.waveforms,
                                                           threads: threads, speechTimeLimitSeconds: settings.speechTimeLimitSeconds) { fraction in
                            events(.progress(output: job.outputName, fraction: fraction))
                        }
                        let seconds = Date().timeIntervalSince(jobStart)
                        // The manifest is written after each job, under the lock, so it always
                        // holds every finished output and an interrupt keeps what is done.
                        let writeError: (any Error)? = state.withLock { s in
                            s.entries[entry.file] = entry
                            s.rendered.append(entry.file)
                            s.warnings += warnings.map { "\(entry.file): \($0)" }
                            do {
                                try writeManifest(base, entries: s.entries, to: manifestPath, in: folder)
                                return nil
                            } catch {
                                return error
                            }
                        }
                        if let writeError { throw writeError }
                        events(.rendered(output: job.outputName, seconds: seconds, warnings: warnings))
                    } catch {
                        let failure = LibraryBuildFailure(preset: job.preset, output: job.outputName, error: describe(error),
                                                          category: category(of: error))
                        state.withLock { $0.failures.append(failure) }
                        events(.failed(failure))
                    }
                }
                group.leave()
            }
        }
        group.wait()

        let (rendered, renderFailures, warnings) = state.withLock { ($0.rendered, $0.failures, $0.warnings) }
        // Failures in job order, so the first is the same at any -j.
        let order = Dictionary(uniqueKeysWithValues: work.enumerated().map { ($1.outputName, $0) })
        failures += renderFailures.sorted { (order[$0.output ?? ""] ?? 0) < (order[$1.output ?? ""] ?? 0) }
        return LibraryBuildSummary(rendered: rendered, skipped: skipped.sorted(), failed: failures, warnings: warnings,
                                   seconds: Date().timeIntervalSince(started), manifest: manifestPath,
                                   category: category(of: failures))
    }

    /// Writes the manifest: `entries`, and what the manifest on disk lists besides that still holds
    /// (another build into the same folder may have added it meanwhile). Holds the folder's lock
    /// while it reads and writes, so two builds never drop each other's outputs.
    static func writeManifest(_ base: LibraryBuildManifest, entries: [String: LibraryBuildManifest.Entry], to path: String,
                              in folder: String) throws
    {
        try FolderLock.withLock(on: [folder]) {
            var all = entries
            if let onDisk = try? LibraryBuildManifest.read(path) {
                for entry in onDisk.outputs where all[entry.file] == nil && entryHolds(entry, in: folder, verify: false) {
                    all[entry.file] = entry
                }
            }
            var manifest = base
            manifest.outputs = Array(all.values)
            try manifest.write(to: path)
        }
    }

    /// Removes the temporary files an earlier run left in `folder` when it was killed outright
    /// (kill -9, a power cut): those untouched for an hour. A render writes to its files all the
    /// while, so one of a build still running is never that old.
    static func removeAbandonedTemporaryFiles(in folder: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var removed = 0
        for name in names where FolderLock.isTemporaryName(name) {
            let path = folder + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
                Date().timeIntervalSince1970 - Double(status.st_mtim.tv_sec) > 3600
            else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// The state the workers share, behind a lock.
    final class SharedState: Sendable {
        let mutex: Mutex<BuildState>
        init(_ value: BuildState) { mutex = Mutex(value) }
        func withLock<R>(_ body: (inout sending BuildState) throws -> sending R) rethrows -> sending R { try mutex.withLock(body) }
    }

    struct BuildState {
        var entries: [String: LibraryBuildManifest.Entry]
        var next: Int
        var rendered: [String] = []
        var warnings: [String] = []
        var failures: [LibraryBuildFailure] = []
    }

    /// Renders one job, the audio and its cue sheets (put in place together), then hashes what was
    /// written.
    static func render(_ job: LibraryBuildJob, into folder: String, sounds: SoundCache, measured: LoudnessCache? = nil,
                       waveforms: WaveformStore? = nil, threads: Int,
                       speechTimeLimitSeconds: Double = SpeechSynthesizer.defaultTimeLimitSeconds,
                       progress: @escaping @Sendable (Double) -> Void) throws -> (LibraryBuildManifest.Entry, warnings: [String]) {
        let path = folder + "/" + job.outputName
        var request = RenderRequest(session: job.session, presetFile: job.presetFile, options: job.options, format: job.format,
                                    destination: .file(path), library: job.library)
        request.soundCache = sounds
        request.loudnessCache = measured
        request.waveforms = waveforms
        request.threads = threads
        // One encoder for every OGG: a render's bytes never depend on the share of cores it got.
        request.oggInPieces = false
        request.speechTimeLimitSeconds = speechTimeLimitSeconds
        // The cue sheets are put in place with the audio, so a failed job leaves neither.
        request.cueSheetPaths = job.cueSheetNames.map { folder + "/" + $0 }
        let lastReported = Mutex(-1.0)
        let report = try Renderer.render(request) { p in
            let fraction = p.fraction
            let due = lastReported.withLock { last in
                guard fraction - last >= 0.01 || fraction >= 1 else { return false }
                last = fraction
                return true
            }
            if due { progress(fraction) }
        }
        guard let bytes = fileSize(path), let sha = SHA256Hasher.hashFile(at: path) else {
            throw IOError(.io, "was written but cannot be read back", path: path)
        }
        var minutes: Double?
        var cycles: Int?
        switch job.length {
        case .duration(let t): minutes = Double(t.milliseconds) / 60_000
        case .cycles(let n): cycles = n
        }
        let entry = LibraryBuildManifest.Entry(
            file: job.outputName, preset: job.preset, minutes: minutes, cycles: cycles, format: job.formatName, rate: report.rate,
            channels: report.channels, frames: report.frames, bytes: bytes, sha256: sha, loudnessLUFS: report.loudnessLUFS,
            speechLoudnessLUFS: report.speechLoudnessLUFS, truePeakDBTP: report.truePeakDBTP, inputsHash: job.inputsHash, cueSheets: job.cueSheetNames,
            cueSheetSHA256: job.cueSheetNames.map { SHA256Hasher.hashFile(at: folder + "/" + $0) ?? "" },
            speech: job.speech.isEmpty ? nil : job.speech)
        return (entry, report.warnings)
    }
}
