import Foundation
import MedrenderCore
import MedrenderIO

extension SpeechSynthesizer {
    /// Speaks, ahead of `audio(for:place:)`, every request not yet in the cache whose engine
    /// speaks many lines in one process (Piper): one process per voice and pace for all their
    /// phrases, so the model loads once (and again for the few lines a pace speaks again).
    /// `place` names the voice for messages. Requests of other engines are left to
    /// `audio(for:place:)`, which joins a line's phrases.
    public func speakAhead(_ requests: [SpeechRequest], place: String) throws {
        var pending: [SpeechRequest] = [], seen = Set<String>()
        for whole in requests where whole.engine == .piper && !FileManager.default.fileExists(atPath: cachedPath(whole)) {
            for (request, _) in whole.phrases where !FileManager.default.fileExists(atPath: cachedPath(request)) {
                if seen.insert(request.key).inserted { pending.append(request) }
            }
        }
        var groups: [[SpeechRequest]] = []
        for request in pending {
            if let i = groups.firstIndex(where: { $0[0].voice == request.voice && $0[0].pace == request.pace }) {
                groups[i].append(request)
            } else {
                groups.append([request])
            }
        }
        for group in groups { try speakTogether(group, place: place) }
    }

    /// Runs Piper for `requests` (one voice, one pace): once for all at the pace's scale, then
    /// once a scale step for the lines that missed their pace; each line's nearest take goes into
    /// the cache, trimmed.
    func speakTogether(_ requests: [SpeechRequest], place: String) throws {
        guard let first = requests.first else { return }
        let pacing = PiperEngine().pacing!
        let scale = first.pace.map { pacing.scale(for: $0) }
        var takes = try piperRun(requests, scale: scale, place: place)
        guard let pace = first.pace, let scale else {
            for (request, take) in zip(requests, takes) { try take.write(to: cachedPath(request), place: place) }
            return
        }
        var again: [Double: [Int]] = [:]
        for (i, request) in requests.enumerated() {
            let target = EnginePacing.seconds(of: request.text, at: pace)
            guard EnginePacing.miss(takes[i].seconds, target: target) > EnginePacing.tolerance else { continue }
            again[EnginePacing.step(pacing.corrected(scale, measured: takes[i].seconds, target: target)), default: []].append(i)
        }
        for (step, indices) in again.sorted(by: { $0.key < $1.key }) {
            let retakes = try piperRun(indices.map { requests[$0] }, scale: step, place: place)
            for (i, retake) in zip(indices, retakes) {
                let target = EnginePacing.seconds(of: requests[i].text, at: pace)
                if EnginePacing.miss(retake.seconds, target: target) < EnginePacing.miss(takes[i].seconds, target: target) { takes[i] = retake }
            }
        }
        for (request, take) in zip(requests, takes) { try take.write(to: cachedPath(request), place: place) }
    }

    /// One Piper process speaking `requests` (one voice) at `scale`: their texts, one a line, into
    /// a folder of WAV files, one a line in order; each trimmed.
    func piperRun(_ requests: [SpeechRequest], scale: Double?, place: String) throws -> [TrimmedSpeech] {
        let first = requests[0]
        guard let executable = Self.locate("piper") else {
            throw RenderError("\(place): the speech engine piper ('piper') is not installed; install it: pip install piper-tts",
                              category: .missingInput)
        }
        guard let voice = PiperVoices.find(first.voice) else {
            throw RenderError("\(place): piper has no voice '\(first.voice)'; see the voices installed with 'medrender voices'",
                              category: .missingInput)
        }
        let scratch = try scratchFolder(for: first, place: place)
        let textFile = scratch + ".txt"
        TemporaryFiles.register(textFile)
        defer {
            try? FileManager.default.removeItem(atPath: textFile)
            try? FileManager.default.removeItem(atPath: scratch)
            TemporaryFiles.unregister(textFile)
        }
        guard FileManager.default.createFile(atPath: textFile, contents: Data((requests.map(\.text).joined(separator: "\n") + "\n").utf8)) else {
            throw RenderError("\(place): cannot write in the speech cache \(cacheDirectory); set XDG_CACHE_HOME to a folder you can write",
                              category: .cannotCreate)
        }
        var all = self
        all.timeLimitSeconds = timeLimitSeconds * Double(requests.count)
        let lastLine = try all.speak(first, executable: executable,
                                     arguments: PiperEngine.arguments(model: voice.model, scale: scale) + ["-i", textFile, "-d", scratch],
                                     place: place, lines: requests.count)
        let files = Self.spokenFiles(in: scratch)
        guard files.count == requests.count else {
            throw RenderError("\(place): piper ('piper') wrote audio for \(files.count) of \(requests.count) lines"
                + (lastLine.isEmpty ? "" : ": \(lastLine)") + "; check the voice '\(first.voice)'", category: .badData)
        }
        return try files.map { try Self.trimmed($0, place: place, engine: "piper") }
    }

    /// A new folder in the cache for one run's files (its name, with `.txt`, is the text's).
    func scratchFolder(for request: SpeechRequest, place: String) throws -> String {
        let scratch = "\(cacheDirectory)/.\(request.key)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        } catch {
            throw RenderError("\(place): cannot create the speech cache \(cacheDirectory) (\(error.localizedDescription)); "
                + "set XDG_CACHE_HOME to a folder you can write", category: .cannotCreate)
        }
        return scratch
    }

    /// The non-empty WAV files Piper wrote in `folder`, in the order it wrote them: each is named
    /// by the clock when it was started.
    static func spokenFiles(in folder: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".wav") }
        return names.sorted { (UInt64($0.dropLast(4)) ?? 0, $0) < (UInt64($1.dropLast(4)) ?? 0, $1) }
            .map { "\(folder)/\($0)" }
            .filter { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? NSNumber)?.int64Value ?? 0) > 44 }
    }
}
