import Crypto
import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A teacher's recording of a whole script in one take, cut into its lines: the phrases found in
/// it (`TakePhrases`), or its explicit cut times, one a `say:` line in order, each put in the
/// speech cache as a line's audio is, with a short fade at both ends, cut in the silence around it.
public enum GuideTake {
    /// The silence kept before a phrase's first sound, faded in (its onset is never cut).
    static let lead = SessionTime(milliseconds: 10)
    /// The silence kept after a phrase's last sound, faded out over its last 10 ms (a word's
    /// decay under the silence threshold is kept); never past half the gap to the next phrase.
    static let tail = SessionTime(milliseconds: 60)
    static let fade = SessionTime(milliseconds: 10)

    /// The take's phrases as `medrender takes` prints them and an error lists them: number, start
    /// and end in seconds, level.
    public static func table(_ phrases: [TakePhrases.Phrase], rate: Int) -> String {
        phrases.enumerated().map { i, p in
            String(format: "%d: %.2f–%.2f s, %.1f dBFS", i + 1, Double(p.startFrame) / Double(rate), Double(p.endFrame) / Double(rate),
                   p.levelDecibels)
        }.joined(separator: "; ")
    }

    /// The take at `path` read, and its phrases found with `settings`; `place` names it in messages.
    public static func phrases(path: String, settings: TakePhrases.Settings, split: [SessionTime]?,
                               place: String) throws -> (asset: AudioAsset, rate: Int, phrases: [TakePhrases.Phrase]) {
        let asset: AudioAsset, rate: Int
        do {
            let reader = try SoundFileReader(path: path)
            rate = reader.rate
            asset = try reader.readAll()
        } catch {
            throw RenderError("\(place): the take \(path) is not a sound medrender can read (\(error.description)); "
                + "give a WAV, FLAC, OGG or MP3 file", category: .badData)
        }
        do throws(TakePhrases.Problem) {
            let phrases = if let split {
                try TakePhrases.split(asset, rate: rate, at: split, settings: settings)
            } else {
                try TakePhrases(asset, rate: rate, settings: settings).phrases
            }
            return (asset, rate, phrases)
        } catch {
            switch error {
            case .silent:
                throw RenderError("\(place): the take \(path) is silent; give the recording of the script", category: .badData)
            case .tooQuiet(let loudest):
                throw RenderError("\(place): the take \(path) is too quiet to split: its loudest is \(String(format: "%.1f", loudest)) dBFS, "
                    + "under \(Int(TakePhrases.quietest)); raise its level (normalize it) and give it again", category: .badData)
            }
        }
    }

    /// Cuts the job's take into its `say:` lines: each line's audio in the cache, the line
    /// naming it, its credit the take's. Does nothing for a script spoken by a voice.
    static func cut(_ job: inout RenderJob) throws {
        guard let recording = job.session.guide?.recording else { return }
        let place = recording.location?.description ?? "\(job.origin): guide.recording"
        guard let take = job.sounds.sounds[recording.sound] else {
            throw RenderError("\(place): the take '\(recording.sound)' was not found; give a sound's name or a path", category: .missingInput)
        }
        let lines = job.session.guide!.lines.indices.filter { if case .say = job.session.guide!.lines[$0].content { true } else { false } }
        let found = try phrases(path: take.path, settings: recording.settings, split: recording.split, place: place)
        if let split = recording.split, split.count + 1 != lines.count {
            throw RenderError("\(place): split gives \(split.count) cuts, so \(split.count + 1) parts, for \(lines.count) lines to say; "
                + "give \(lines.count - 1) cut times, one between each two lines", category: .badData)
        }
        if let empty = found.phrases.firstIndex(where: { $0.endFrame <= $0.startFrame }) {
            throw RenderError("\(place): part \(empty + 1) of the take between its cuts has no sound; check the split times against "
                + "the phrases found (medrender takes \(take.path)): \(table(try phrases(path: take.path, settings: recording.settings, split: nil, place: place).phrases, rate: found.rate))",
                category: .badData)
        }
        guard found.phrases.count == lines.count else {
            throw RenderError("\(place): the take \(take.path) has \(found.phrases.count) phrases for \(lines.count) lines to say "
                + "(\(table(found.phrases, rate: found.rate))); "
                + (found.phrases.count > lines.count ? "raise the gap (gap:) if a line is split where it pauses, or "
                    : "lower the gap (gap:) or the silence (silence:) if two lines run together, or ")
                + "give the cut times between the lines (split:)", category: .badData)
        }
        let key = cacheKey(take.path, recording: recording)
        let synthesizer = SpeechSynthesizer()
        try synthesizer.makeCacheDirectory(place: place)
        let cache = synthesizer.cacheDirectory
        for (n, (index, phrase)) in zip(lines, found.phrases).enumerated() {
            let next = n + 1 < found.phrases.count ? found.phrases[n + 1].startFrame : found.asset.frameCount
            let before = n > 0 ? found.phrases[n - 1].endFrame : 0
            let path = "\(cache)/take-\(key)-\(n + 1).wav"
            if !FileManager.default.fileExists(atPath: path) {
                try write(found.asset, rate: found.rate, phrase: phrase, between: before, and: next, to: path, place: place)
            }
            let ref = SoundRef("take-\(key.prefix(16))-\(n + 1)")
            job.sounds.sounds[ref] = ResolvedSound(ref: ref, path: path, credit: take.credit)
            job.session.guide!.lines[index].speech = ref
        }
    }

    /// Writes one line of the take: its phrase with `lead` before and up to `tail` after it (never
    /// past half the silence to its neighbours), faded in and out.
    static func write(_ asset: AudioAsset, rate: Int, phrase: TakePhrases.Phrase, between before: Int, and next: Int,
                      to path: String, place: String) throws {
        let lead = Int(lead.frameCount(atRate: rate)), tail = Int(tail.frameCount(atRate: rate))
        let fade = Int(fade.frameCount(atRate: rate))
        let start = max(phrase.startFrame - lead, (before + phrase.startFrame) / 2, 0)
        let end = min(phrase.endFrame + tail, (phrase.endFrame + next) / 2, asset.frameCount)
        let channels = asset.channels
        var samples = Array(asset.samples[(start * channels)..<(end * channels)])
        let frames = end - start
        for i in 0..<min(fade, frames) {
            // A raised cosine: no corner at either end of the fade, so no click.
            let gain = Float(0.5 - 0.5 * cos(Double.pi * Double(i) / Double(fade)))
            for c in 0..<channels {
                samples[i * channels + c] *= gain
                samples[(frames - 1 - i) * channels + c] *= gain
            }
        }
        try TrimmedSpeech(samples: samples, channels: channels, rate: rate).write(to: path, place: place)
    }

    /// The cut lines' cache key: the take's path and identity, how it is split, and this code's version.
    static func cacheKey(_ path: String, recording: GuideRecording) -> String {
        var hasher = SHA256()
        let fields = ["medrender-take", "1", path, FileIdentity(path: path).description, "\(recording.settings.silence)",
                      recording.settings.gap.description, recording.settings.shortest.description,
                      recording.split.map { $0.map(\.description).joined(separator: ",") } ?? "found"]
        for field in fields { hasher.update(data: Array(field.utf8) + [0]) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
