import ArgumentParser
import Foundation
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import Synchronization

/// `medrender build [DIR|FILE…] -o OUTDIR`: renders a whole library, incrementally and in parallel.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Render every preset × length × format of a library into a folder, with cue sheets and a manifest.",
        discussion: """
            Each output is OUTDIR/<preset>-<minutes>min.<ext> (or <preset>-<N>cycles.<ext> for a preset whose \
            default is in cycles), with its cue sheets (.json, .vtt) beside it, listed in OUTDIR/manifest.json. \
            An output is rendered again only when its inputs changed: the preset's bytes, its sounds' bytes, the \
            options, or the renderer's version. --shard K/N renders the K-th of N parts and writes \
            OUTDIR/manifest-K-of-N.json; --shard auto takes K and N from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_MIN/MAX/COUNT, \
            JOB_COMPLETION_INDEX with --shards N, or AWS_BATCH_JOB_ARRAY_INDEX with AWS_BATCH_JOB_ARRAY_SIZE. 'build --merge DIR…' joins shard manifests into one manifest.json \
            (in -o, or the first DIR). A failed preset does not stop the others.

            Exit codes: 0 all built, 65 a preset was bad, else the first failure's (64 usage, 66 missing input, \
            73 cannot create output, 74 I/O error); 130 interrupted (SIGINT), 143 terminated (SIGTERM).
            """)

    @OptionGroup var encoding: EncodingOptions

    @OptionGroup var libraries: LibraryOptions

    @OptionGroup var speech: SpeechOptions

    @Argument(help: "Preset folders, files or names (default: the library's Presets/). With --merge: the shards' folders.")
    var inputs: [String] = []

    @Option(name: .shortAndLong, help: "The output folder (created if missing). With --merge: where manifest.json goes (default: the first folder).")
    var output: String?

    @Option(name: .long, help: "Lengths in minutes, comma-separated (such as 5,10,15,20). Default: each preset's own.")
    var minutes: String?

    @Option(name: .long, help: "Lengths in whole breath cycles, comma-separated, instead of --minutes.")
    var cycles: String?

    @Option(name: .long, help: ArgumentHelp("Formats, comma-separated, of: ogg, wav, flac, opus, mp3.", valueName: "format,..."))
    var format = FormatList([.ogg])

    @Option(name: .long, help: ArgumentHelp("Output sample rate, 8000 to 192000 Hz: in hertz (44100) or kilohertz (44.1k).", valueName: "hz"))
    var rate = RateArgument(48000)

    @Option(name: .customShort("j"), help: "Cores to keep busy, one render on each (default: every core).")
    var jobs: Int?

    @Option(name: .long, help: "Render only the K-th of N shards, such as 1/2; writes manifest-K-of-N.json. 'auto': the shard a Slurm array, a Kubernetes Indexed Job or an AWS Batch array job gives in the environment.")
    var shard: String?

    @Option(name: .long, help: "With --shard auto: the number of shards (a Kubernetes Indexed Job's completions; checked against the scheduler's count elsewhere).")
    var shards: Int?

    @Flag(name: .long, help: "Join the shard manifests in the given folders into one manifest.json.")
    var merge = false

    @Flag(name: .long, help: "Check each existing output's SHA-256 against the manifest, not only its size (slower).")
    var verify = false

    @Flag(name: .long, help: "Print a summary as JSON: rendered, skipped, failed (with errors), seconds.")
    var json = false

    @Option(name: .long, help: "Write a podcast feed, OUTDIR/feed.xml, for the folder published at this absolute http(s) URL (with --merge: one feed for all shards).")
    var feed: String?

    @Option(name: .long, help: "The library's settings file (the feed's title, author, image…). Default: library.yaml in the first library that has one, a --library before the stock one.")
    var settings: String?

    @Flag(name: .long, help: "Print what would render (each output, whether it is up to date, its shard) and each shard's share, without rendering.")
    var dryRun = false

    static func list(_ text: String, option: String) throws -> [String] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.contains(where: \.isEmpty) else { throw ValidationError("\(option) \(text): an empty item; give a comma-separated list") }
        return items
    }

    func lengths() throws -> [SessionLength] {
        var result: [SessionLength] = []
        if let minutes {
            for item in try Self.list(minutes, option: "--minutes") {
                guard let m = Double(item), m.isFinite else {
                    throw ValidationError("--minutes \(item) is not a number; give minutes above 0 and up to 1440, comma-separated")
                }
                guard RequestLimits.minutes.contains(m), let t = SessionTime(minutes: m) else {
                    throw ValidationError("--minutes \(item) is out of range; give minutes above 0 and up to 1440, comma-separated")
                }
                if !result.contains(.duration(t)) { result.append(.duration(t)) }
            }
        }
        if let cycles {
            for item in try Self.list(cycles, option: "--cycles") {
                guard let n = Int(item) else {
                    throw ValidationError("--cycles \(item) is not a whole number; give 1 to 100000, comma-separated")
                }
                guard RequestLimits.cycles.contains(Double(n)) else {
                    throw ValidationError("--cycles \(item) is out of range; give 1 to 100000, comma-separated")
                }
                if !result.contains(.cycles(n)) { result.append(.cycles(n)) }
            }
        }
        return result
    }


    func validate() throws {
        if let feed, LibraryFeedSettings.baseURL(feed) == nil { throw ValidationError(LibraryFeedSettings.urlProblem(feed, option: "--feed")) }
        if merge {
            guard !inputs.isEmpty else { throw ValidationError("--merge needs the shards' folders: medrender build --merge OUTDIR…") }
            return
        }
        guard output != nil else { throw ValidationError("give the output folder with -o OUTDIR") }
        if minutes != nil, cycles != nil { throw ValidationError("give --minutes or --cycles, not both") }
        _ = try lengths()
        try asValidation {
            try RequestLimits.rate.check(rate.hertz)
            try encoding.check()
        }
        if encoding.bits == .float32, format.formats.contains(.flac) { throw ValidationError("--bits 32f is for WAV; FLAC takes 16 or 24") }
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("-j \(jobs): give 1 to 1024 renders at once") }
        if let shard, shard != "auto", LibraryBuildShard(parsing: shard) == nil {
            throw ValidationError("--shard \(shard) is not a shard; give K/N, two whole numbers with 1 ≤ K ≤ N, such as 1/2, or auto")
        }
        if let shards {
            guard shard == "auto" else { throw ValidationError("--shards \(shards) is for --shard auto; with --shard K/N, N is the number of shards") }
            guard shards >= 1 else { throw ValidationError("--shards \(shards) is not a number of shards; give a whole number of 1 or more") }
        }
    }

    /// The preset files the arguments name: a folder's `.yaml` files, a file, or a library name.
    func presetFiles(_ library: PresetLibrary) throws -> [String] {
        if inputs.isEmpty {
            guard library.isPresent else { throw RenderError(library.absenceMessage, category: .missingInput) }
            guard !library.presetFiles().isEmpty else {
                throw RenderError("\(library.presetsFolder): holds no presets (.yaml files); name presets or folders to build", category: .missingInput)
            }
            return library.presetFiles()
        }
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []
                    let folder = input.hasSuffix("/") ? String(input.dropLast()) : input
                    let found = names.filter(PresetLibrary.isPresetFileName).sorted().map { folder + "/" + $0 }
                    guard !found.isEmpty else {
                        throw RenderError("\(input): holds no presets (.yaml files); name presets or folders to build", category: .missingInput)
                    }
                    files += found
                } else {
                    files.append(input)
                }
            } else {
                let path = try library.presetPath(input)
                guard FileManager.default.fileExists(atPath: path) else {
                    throw RenderError("\(input): no such preset file or folder", category: .missingInput)
                }
                files.append(path)
            }
        }
        // Two presets of one name would write the same outputs.
        var seen: [String: String] = [:]
        var unique: [String] = []
        for file in files {
            let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            if let other = seen[name] {
                if URL(fileURLWithPath: other).standardizedFileURL == URL(fileURLWithPath: file).standardizedFileURL { continue }
                throw RenderError("\(file) and \(other) are both named '\(name)': their outputs would collide; rename one", category: .usage)
            }
            seen[name] = file
            unique.append(file)
        }
        return unique
    }

    func run() throws {
        do {
            if merge {
                try runMerge()
                return
            }
            let library = libraries.library()
            var folder = output!
            // From the scheduler's environment, said before anything is built so a task's log tells which part it is.
            let scheduled = try shard == "auto"
                ? LibraryBuildSchedulerShard.resolve(ProcessInfo.processInfo.environment, shards: shards) : nil
            if let scheduled { Console.error("\(scheduled)\n") }
            let chosen = scheduled?.shard ?? shard.flatMap(LibraryBuildShard.init(parsing:))
            while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
            let files = try presetFiles(library)
            let podcast = try BuildFeed.resolve(feed: feed, settingsOption: self.settings, library: library)
            var settings = LibraryBuildSettings(
                presetFiles: files, outputDirectory: folder, lengths: try lengths(), formats: format.formats,
                rate: rate.hertz, channels: encoding.channels, quality: encoding.quality, bits: encoding.bits,
                jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, shard: chosen,
                verify: verify, library: library)
            settings.speechTimeLimitSeconds = speech.timeLimitSeconds
            // The preview pages draw each output's waveform as it was written, not decoded again.
            settings.waveforms = WaveformStore()
            // ... and are planned with the sounds the build decoded, not decoded again.
            settings.sounds = SoundCache()
            if dryRun {
                try printDryRun(LibraryBuildDryRun(settings), chosen: chosen)
                return
            }
            let display = BuildProgress(live: Console.errorIsTerminal)
            let summary = LibraryBuild.run(settings) { display.handle($0) }
            display.finish()
            var names: [String: String] = [:]
            for file in files { names[URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent] = file }
            BuildIndex.writeOrWarn(folder: folder, manifestPath: settings.manifestPath, presetFiles: names, library: library,
                                   waveforms: settings.waveforms, sounds: settings.sounds)
            if let podcast {
                if chosen != nil {
                    Console.error("the feed of a sharded build is written by 'medrender build --merge … --feed URL'\n")
                } else {
                    try podcast.write(folder: folder, manifestPath: settings.manifestPath, presetFiles: names,
                                      formats: settings.formats.map(\.rawValue), library: library)
                }
            }
            var line = "built \(folder): \(summary.rendered.count) rendered, \(summary.skipped.count) up to date"
            if !summary.failed.isEmpty { line += ", \(summary.failed.count) failed" }
            line += String(format: " (%.1f s)\n", summary.seconds)
            Console.error(line)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                try Console.output(String(decoding: try encoder.encode(BuildSummaryJSON(summary, shard: chosen, scheduled: scheduled)), as: UTF8.self) + "\n")
            }
            if let category = summary.category { throw ExitCode(SysExit(category).rawValue) }
        } catch let error as ValidationError {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail(error)
        }
    }

    /// The outputs a build would write, a line each, then each shard's share of the work.
    func printDryRun(_ plan: LibraryBuildDryRun, chosen: LibraryBuildShard?) throws {
        var text = ""
        let width = plan.outputs.map(\.name.count).max() ?? 0
        for output in plan.outputs where chosen == nil || output.shard == chosen!.index {
            text += output.name.padding(toLength: width + 2, withPad: " ", startingAt: 0)
            text += SessionTime(milliseconds: Int64(output.seconds * 1000)).clockString
            if plan.shards > 1 { text += "  shard \(output.shard)/\(plan.shards)" }
            text += output.upToDate ? "  up to date\n" : "  would render\n"
        }
        let total = plan.shareSeconds.reduce(0, +)
        if plan.shards > 1 {
            let mean = total / Double(plan.shards)
            for (index, seconds) in plan.shareSeconds.enumerated() {
                let count = plan.outputs.filter { $0.shard == index + 1 }.count
                text += String(format: "shard %d/%d: %d outputs, %@ of audio, %.2f× the mean\n", index + 1, plan.shards, count,
                               SessionTime(milliseconds: Int64(seconds * 1000)).clockString, mean > 0 ? seconds / mean : 0)
            }
        }
        let pending = plan.outputs.filter { !$0.upToDate && (chosen == nil || $0.shard == chosen!.index) }.count
        text += "\(pending) would render, \(plan.outputs.filter { $0.upToDate && (chosen == nil || $0.shard == chosen!.index) }.count) up to date"
        text += plan.failures.isEmpty ? "\n" : ", \(plan.failures.count) failed\n"
        try Console.output(text)
        for failure in plan.failures { printError("\(failure.preset): \(failure.error)") }
        if let category = LibraryBuild.category(of: plan.failures) { throw ExitCode(SysExit(category).rawValue) }
    }

    func runMerge() throws {
        var folders = inputs.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        folders = folders.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        let target = output ?? folders[0]
        let library = libraries.library()
        let podcast = try BuildFeed.resolve(feed: feed, settingsOption: self.settings, library: library)
        let summary = try LibraryBuild.merge(folders, into: target)
        BuildIndex.writeOrWarn(folder: target, manifestPath: summary.manifest, presetFiles: [:], library: library)
        try podcast?.write(folder: target, manifestPath: summary.manifest, presetFiles: [:], library: library)
        Console.error("merged \(summary.manifests.count) manifests, \(summary.outputs) outputs, into \(summary.manifest)\(summary.copied.isEmpty ? "" : " (copied \(summary.copied.count) files)")\n")
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try Console.output(String(decoding: try encoder.encode(summary), as: UTF8.self) + "\n")
        }
    }
}

/// The build's progress on stderr: on a terminal, a live line (done/total, what is rendering,
/// elapsed, ETA) with a line per finished output above it; otherwise a plain line per output.
final class BuildProgress: Sendable {
    struct State {
        var total = 0
        var done = 0
        var failed = 0
        var frames: [String: Int64] = [:]
        var totalFrames: Int64 = 0
        var framesDone: Int64 = 0
        var running: [String: Double] = [:]
        var order: [String] = []
        var lastDraw = Date.distantPast
        var drawn = false
        var pace = BuildPace()
    }

    let live: Bool
    let started = Date()
    let state = Mutex(State())

    init(live: Bool) { self.live = live }

    func handle(_ event: LibraryBuildEvent) {
        state.withLock { s in
            switch event {
            case .planned(let jobs, _):
                s.total = jobs.count
                for (name, frames) in jobs { s.frames[name] = max(1, frames) }
                s.totalFrames = jobs.reduce(0) { $0 + max(1, $1.frames) }
            case .started(let name):
                s.running[name] = 0
                s.order.append(name)
            case .progress(let name, let fraction):
                s.running[name] = fraction
                draw(&s, force: false)
            case .rendered(let name, let seconds, let warnings):
                finish(name, &s)
                s.done += 1
                emit(&s, String(format: "rendered \(name) (%.1f s)", seconds))
                for warning in warnings { emit(&s, "medrender: warning: \(name): \(warning)") }
            case .removedAbandoned(let count):
                emit(&s, "removed \(count) unfinished file\(count == 1 ? "" : "s") that a stopped build left behind")
            case .failed(let failure):
                if let name = failure.output, s.running[name] != nil {
                    finish(name, &s)
                    s.done += 1
                }
                s.failed += 1
                emit(&s, "medrender: error: \(failure.error)")
            }
        }
    }

    private func finish(_ name: String, _ s: inout State) {
        s.running[name] = nil
        s.order.removeAll { $0 == name }
        s.framesDone += s.frames[name] ?? 0
    }

    /// A finished line: above the live line on a terminal, else on its own.
    private func emit(_ s: inout State, _ line: String) {
        var text = live && s.drawn ? "\r\u{1B}[K" : ""
        text += line + "\n"
        Console.error(text)
        s.drawn = false
        draw(&s, force: true)
    }

    private func draw(_ s: inout State, force: Bool) {
        guard live, s.total > 0 else { return }
        let now = Date()
        guard force || now.timeIntervalSince(s.lastDraw) >= 0.1 else { return }
        s.lastDraw = now
        var frames = Double(s.framesDone)
        for (name, fraction) in s.running { frames += fraction * Double(s.frames[name] ?? 0) }
        let fraction = min(1, frames / Double(max(1, s.totalFrames)))
        let elapsed = now.timeIntervalSince(started)
        s.pace.add(time: elapsed, done: frames)
        let eta = s.pace.remainingSeconds(total: Double(s.totalFrames)).map { $0 >= 1 ? Self.clock($0) : "finishing" } ?? "…"
        var current = s.order.prefix(2).joined(separator: ", ")
        if s.order.count > 2 { current += " +\(s.order.count - 2)" }
        let columns = 100
        if current.count > columns / 2 { current = String(current.prefix(columns / 2 - 1)) + "…" }
        let line = "[\(s.done)/\(s.total)] \(Int(fraction * 100))%  \(current.isEmpty ? "" : "rendering \(current)  ")\(Self.clock(elapsed)) elapsed, ETA \(eta) "
        Console.error("\r\u{1B}[K\(line)")
        s.drawn = true
    }

    static func clock(_ seconds: Double) -> String { ClockLabel.of(seconds: seconds) }

    func finish() {
        guard live else { return }
        state.withLock { s in
            if s.drawn { Console.error("\r\u{1B}[K") }
            s.drawn = false
        }
    }
}

/// The build's pace, for its ETA: how much of it was done in the last `window` seconds. The
/// rest goes at the pace of the cores busy now, not at the build's average: while the last
/// render runs alone, it goes at one core's pace, and an ETA from the average would reach 0:00
/// long before the build ends.
struct BuildPace {
    /// Seconds of progress the pace is measured over.
    static let window = 8.0
    private(set) var samples: [(time: Double, done: Double)] = []

    mutating func add(time: Double, done: Double) {
        samples.append((time, done))
        // Keep one sample at or before the window's start, so the pace spans the whole window.
        while samples.count > 2, samples[1].time <= time - Self.window { samples.removeFirst() }
    }

    /// Seconds until `total` is done at the recent pace; nil until there is a pace to go by.
    func remainingSeconds(total: Double) -> Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 1 else { return nil }
        let rate = (last.done - first.done) / (last.time - first.time)
        guard rate > 0 else { return nil }
        return max(0, total - last.done) / rate
    }
}
