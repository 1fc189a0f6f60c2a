import Foundation
import MedrenderCore
import MedrenderIO

/// What `medrender inspect` tells of a sound file.
public struct InspectReport: Sendable, Codable, Hashable {
    public struct Chapter: Sendable, Codable, Hashable {
        public var seconds: Double
        public var name: String
    }
    public var path: String
    public var format: String
    public var rate: Int
    public var channels: Int
    public var frames: Int64
    public var durationSeconds: Double
    public var duration: String
    public var loudnessLUFS: Double?
    public var truePeakDBTP: Double?
    public var tags: [String: String]
    public var chapters: [Chapter]
}

/// Reads a file's length, format, loudness, tags, chapters and markers.
public enum Inspector {
    static let formatNames: [Int32: String] = [
        0x010000: "WAV", 0x020000: "AIFF", 0x170000: "FLAC", 0x200000: "OGG", 0x230000: "MP3",
    ]

    public static func inspect(_ path: String) throws -> InspectReport {
        let reader = try SoundFileReader(path: path)
        let meter = try LoudnessMeter(channels: min(reader.channels, 2), rate: reader.rate, withTruePeak: true)
        // In blocks, folded to stereo as sounds are: a file of any length takes the same memory.
        var frames: Int64 = 0
        let block = 4096
        var buffer = [Float](repeating: 0, count: block * reader.channels)
        var folded = [Float](repeating: 0, count: block * min(reader.channels, 2))
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) -> Int in
                try reader.read(into: p.baseAddress!, frameCount: block)
            }
            if n == 0 { break }
            SoundFileReader.fold(buffer, channels: reader.channels, frames: n, into: &folded)
            try folded.withUnsafeBufferPointer { (p) throws(IOError) in try meter.add(p.baseAddress!, frameCount: n) }
            frames += Int64(n)
        }
        var tags: [String: String] = [:]
        for (key, value) in reader.tags() { tags[key] = value }
        var chapters: [InspectReport.Chapter] = []
        // The comment header sits in the first pages: a bounded read.
        if let head = FileChunks.prefix(ofFileAt: path, count: 1 << 20), let comments = OggPages.comments(head) {
            var times: [String: Double] = [:]
            var names: [String: String] = [:]
            for comment in comments {
                guard let eq = comment.firstIndex(of: "=") else { continue }
                let key = comment[..<eq].uppercased(), value = String(comment[comment.index(after: eq)...])
                if key.hasPrefix("CHAPTER"), key.hasSuffix("NAME") {
                    names[String(key.dropLast(4))] = value
                } else if key.hasPrefix("CHAPTER") {
                    times[key] = clockSeconds(value)
                } else {
                    tags[key.lowercased()] = value
                }
            }
            chapters = times.keys.sorted().compactMap { key in
                times[key].map { InspectReport.Chapter(seconds: $0, name: names[key] ?? "") }
            }
        }
        if chapters.isEmpty {
            chapters = reader.cuePoints().map { InspectReport.Chapter(seconds: Double($0.frame) / Double(reader.rate), name: $0.name) }
        }
        let loudness = try meter.integratedLoudness()
        let peak = try meter.truePeak()
        let exact = SessionTime(milliseconds: frames * 1000 / Int64(reader.rate))
        return InspectReport(
            path: path, format: formatNames[reader.format] ?? String(format: "0x%06x", reader.format), rate: reader.rate,
            channels: reader.channels, frames: frames, durationSeconds: Double(frames) / Double(reader.rate),
            duration: exact.clockString, loudnessLUFS: loudness.isFinite ? loudness : nil,
            truePeakDBTP: peak > 0 ? 20 * log10(peak) : nil, tags: tags, chapters: chapters)
    }

    /// Seconds from `HH:MM:SS.mmm`.
    static func clockSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}
