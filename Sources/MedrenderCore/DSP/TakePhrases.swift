import Foundation

/// The spoken phrases of a teacher's recording made in one take: where the voice sounds, found
/// from the take's own level, so that a take recorded soft or loud, in a quiet room or over a
/// little hiss, splits the same way.
///
/// The take is measured in 5-ms windows. Its level is the loudest 5 % of its windows (the voice
/// at full); a window is silence when it is `silence` dB or more under that. Sound between two
/// silences shorter than `gap` is one phrase (the breath between two words, a comma), and sound
/// shorter than `shortest` is no phrase (a click, a lip noise). A phrase's edges are then moved to
/// its first and last sample over the silence threshold.
public struct TakePhrases: Sendable {
    /// One phrase: its frames in the take, and its level (dBFS, the RMS of its loudest window).
    public struct Phrase: Hashable, Sendable {
        public var startFrame: Int
        /// The frame after its last sound.
        public var endFrame: Int
        public var levelDecibels: Double
    }

    /// How the take is read.
    public struct Settings: Hashable, Sendable {
        /// How far under the take's level silence starts, in dB (−80…−6).
        public var silence: Double = -30
        /// The shortest silence between two phrases (0.05…10 s): longer than a pause between two
        /// sentences of one line (up to about 0.7 s at a teacher's pace), shorter than one between lines.
        public var gap = SessionTime.seconds(1)
        /// The shortest sound that is a phrase.
        public var shortest = SessionTime(milliseconds: 100)
        public init() {}
    }

    public static let silenceRange = -80.0...(-6)
    public static let gapRange = 0.05...10.0
    /// A take whose loudest window is under this (dBFS) is too quiet to split.
    public static let quietest = -50.0

    /// Why a take cannot be split.
    public enum Problem: Error, Hashable, Sendable {
        case silent
        /// Its loudest window, in dBFS.
        case tooQuiet(Double)
    }

    public let phrases: [Phrase]
    /// The take's level, in dBFS (the loudest 5 % of its windows).
    public let levelDecibels: Double

    /// The phrases of `asset` (recorded at `rate`).
    public init(_ asset: AudioAsset, rate: Int, settings: Settings = Settings()) throws(Problem) {
        let window = max(1, rate / 200)
        let power = Self.windowPower(asset, window: window)
        guard let loudest = power.max(), loudest > 0 else { throw .silent }
        let loudestDecibels = 10 * log10(loudest)
        guard loudestDecibels >= Self.quietest else { throw .tooQuiet(loudestDecibels) }
        let sorted = power.sorted()
        let level = 10 * log10(max(sorted[min(sorted.count - 1, sorted.count * 95 / 100)], 1e-20))
        levelDecibels = level
        let threshold = pow(10, (level + settings.silence) / 10)
        // Runs of windows over the threshold, joined across gaps shorter than `gap`.
        let gapWindows = Int(settings.gap.frameCount(atRate: rate)) / window
        var runs: [(first: Int, last: Int)] = []
        for (i, p) in power.enumerated() where p > threshold {
            if let last = runs.last, i - last.last - 1 < gapWindows {
                runs[runs.count - 1].last = i
            } else {
                runs.append((i, i))
            }
        }
        let shortest = Int(settings.shortest.frameCount(atRate: rate))
        let amplitude = Float(sqrt(threshold))
        phrases = runs.compactMap { run in
            let start = Self.firstLoud(asset, from: run.first * window, to: min(asset.frameCount, (run.first + 1) * window), over: amplitude)
            let end = Self.lastLoud(asset, from: run.last * window, to: min(asset.frameCount, (run.last + 1) * window), over: amplitude) + 1
            guard end - start >= shortest else { return nil }
            let peak = power[run.first...run.last].max() ?? 0
            return Phrase(startFrame: start, endFrame: end, levelDecibels: 10 * log10(max(peak, 1e-20)))
        }
    }

    /// The mean power of each window of `window` frames (all channels).
    static func windowPower(_ asset: AudioAsset, window: Int) -> [Double] {
        let channels = asset.channels, frames = asset.frameCount
        return asset.samples.withUnsafeBufferPointer { samples in
            stride(from: 0, to: frames, by: window).map { start in
                let end = min(frames, start + window)
                var sum = 0.0
                for i in (start * channels)..<(end * channels) { sum += Double(samples[i]) * Double(samples[i]) }
                return sum / Double((end - start) * channels)
            }
        }
    }

    static func loud(_ asset: AudioAsset, _ frame: Int, over amplitude: Float) -> Bool {
        (0..<asset.channels).contains { abs(asset.samples[frame * asset.channels + $0]) > amplitude }
    }

    /// The first frame in `from..<to` over `amplitude` (the window's first when none is).
    static func firstLoud(_ asset: AudioAsset, from: Int, to: Int, over amplitude: Float) -> Int {
        (from..<to).first { loud(asset, $0, over: amplitude) } ?? from
    }

    /// The last frame in `from..<to` over `amplitude` (the window's last when none is).
    static func lastLoud(_ asset: AudioAsset, from: Int, to: Int, over amplitude: Float) -> Int {
        (from..<to).last { loud(asset, $0, over: amplitude) } ?? (to - 1)
    }

    /// The take's lines as cut at `cuts` (seconds from its start, increasing): each part's sound
    /// from its first sample over the silence threshold to its last, as a phrase.
    public static func split(_ asset: AudioAsset, rate: Int, at cuts: [SessionTime], settings: Settings = Settings()) throws(Problem) -> [Phrase] {
        let whole = try TakePhrases(asset, rate: rate, settings: settings)
        let bounds = [0] + cuts.map { min(asset.frameCount, Int($0.frame(atRate: rate))) } + [asset.frameCount]
        return zip(bounds, bounds.dropFirst()).map { start, end in
            let inside = whole.phrases.filter { $0.endFrame > start && $0.startFrame < end }
            guard let first = inside.first, let last = inside.last else {
                return Phrase(startFrame: start, endFrame: start, levelDecibels: -200)
            }
            return Phrase(startFrame: max(start, first.startFrame), endFrame: min(end, last.endFrame),
                          levelDecibels: inside.map(\.levelDecibels).max() ?? -200)
        }
    }
}
