import Foundation
import MedrenderCore
import MedrenderIO

extension SpeechSynthesizer {
    /// Speaks, ahead of `audio(for:place:)`, every request not yet in the cache whose engine
    /// speaks many lines in one process (Piper): one process per voice for all its lines, so its
    /// model loads once. `place` names the voice for messages. Requests of other engines are left
    /// to `audio(for:place:)`.
    public func speakAhead(_ requests: [SpeechRequest], place: String) throws {
        var pending: [SpeechRequest] = [], seen = Set<String>()
        for request in requests where request.engine == .piper && !FileManager.default.fileExists(atPath: cachedPath(request)) {
            if seen.insert(request.key).inserted { pending.append(request) }
        }
        var voices: [String] = []
        for request in pending where !voices.contains(request.voice) { voices.append(request.voice) }
        for voice in voices {
            try speakTogether(pending.filter { $0.voice == voice }, place: place)
        }
    }

    /// Runs Piper once for `requests` (one voice): their texts, one a line, into a folder of WAV
    /// files, one a line in order; each trimmed into the cache.
    func speakTogether(_ requests: [SpeechRequest], place: String) throws {
        guard let first = requests.first else { return }
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
                                     arguments: PiperEngine.arguments(model: voice.model) + ["-i", textFile, "-d", scratch], place: place,
                                     lines: requests.count)
        let files = Self.spokenFiles(in: scratch)
        guard files.count == requests.count else {
            throw RenderError("\(place): piper ('piper') wrote audio for \(files.count) of \(requests.count) lines"
                + (lastLine.isEmpty ? "" : ": \(lastLine)") + "; check the voice '\(first.voice)'", category: .badData)
        }
        for (request, file) in zip(requests, files) {
            try Self.trimmed(file, to: cachedPath(request), place: place, engine: "piper")
        }
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
