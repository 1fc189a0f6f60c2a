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
    /// Signs that the file is damaged or cut short.
    public var warnings: [String] = []
}

/// Reads a file's length, format, loudness, tags, chapters and markers.
public enum Inspector {
    static let formatNames: [Int32: String] = [
        0x010000: "WAV", 0x020000: "AIFF", 0x030000: "AU", 0x0B0000: "W64", 0x130000: "WAV (extensible)",
        0x170000: "FLAC", 0x180000: "CAF", 0x200000: "OGG", 0x220000: "RF64", 0x230000: "MP3",
    ]

    public static func inspect(_ path: String) throws -> InspectReport {
        let reader = try SoundFileReader(path: path)
        // Every channel measured with its weight (a 5.1 file: the LFE left out, the surrounds
        // +1.5 dB), as ffmpeg's ebur128 reads it; in blocks, so any length takes the same memory.
        let meter = try LoudnessMeter(channels: reader.channels, rate: reader.rate, withTruePeak: true,
                                      roles: reader.loudnessRoles())
        var frames: Int64 = 0
        let block = 4096
        var buffer = [Float](repeating: 0, count: block * reader.channels)
        var stoppedEarly: String?
        while true {
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) -> Int in
                    try reader.read(into: p.baseAddress!, frameCount: block)
                }
            } catch {
                // A damaged file: what came before the damage is still worth reporting.
                guard frames > 0 else { throw error }
                stoppedEarly = "decoding stopped after \(frames) frames (\(error.message)): it is damaged or cut short"
                break
            }
            if n == 0 { break }
            try buffer.withUnsafeBufferPointer { (p) throws(IOError) in try meter.add(p.baseAddress!, frameCount: n) }
            frames += Int64(n)
        }
        var tags: [String: String] = [:]
        for (key, value) in reader.tags() { tags[key] = value }
        var chapters: [InspectReport.Chapter] = []
        // The comment header sits in the first pages: a bounded read.
        let head = FileChunks.prefix(ofFileAt: path, count: 1 << 20)
        if let head, let comments = OggPages.comments(head) ?? FlacComments.comments(head) {
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
        if chapters.isEmpty, let head {
            chapters = ID3Chapters.chapters(head).map { InspectReport.Chapter(seconds: Double($0.startMilliseconds) / 1000, name: $0.title) }
        }
        if chapters.isEmpty {
            chapters = reader.cuePoints().map { InspectReport.Chapter(seconds: Double($0.frame) / Double(reader.rate), name: $0.name) }
        }
        let loudness = try meter.integratedLoudness()
        let peak = try meter.truePeak()
        let exact = SessionTime(milliseconds: frames * 1000 / Int64(reader.rate))
        var report = InspectReport(
            path: path, format: reader.mediaFormatName ?? (reader.format == 0x200000 && reader.encoding == 0x0064 ? "Opus"
                : formatNames[reader.format] ?? String(format: "0x%06x", reader.format)), rate: reader.rate,
            channels: reader.channels, frames: frames, durationSeconds: Double(frames) / Double(reader.rate),
            duration: exact.clockString, loudnessLUFS: loudness.isFinite ? loudness : nil,
            truePeakDBTP: peak > 0 ? 20 * log10(peak) : nil, tags: tags, chapters: chapters)
        report.warnings = (stoppedEarly.map { [$0] } ?? []) + cutShortSigns(path, headerFrames: reader.frameCount, report: report)
        return report
    }

    /// What says a file was cut short: fewer frames than its header promises, a RIFF size past the
    /// end, an Ogg stream without its last page, chapters after the end.
    static func cutShortSigns(_ path: String, headerFrames: Int64, report: InspectReport) -> [String] {
        var signs: [String] = []
        // libsndfile says SF_COUNT_MAX when a header does not know its length.
        if headerFrames > report.frames, headerFrames < Int64.max / 2 {
            signs.append("it holds \(report.frames) frames but its header promises \(headerFrames): it may be cut short")
        }
        let size = FilePaths.regularFileSize(path) ?? 0
        // A RIFF header's size, or an RF64 header's in its ds64 chunk.
        if let head = FileChunks.prefix(ofFileAt: path, count: 28), let announced = WaveSize.announcedLength(head: head), announced > size {
            let kind = head[0..<4].elementsEqual("RF64".utf8) ? "RF64" : "RIFF"
            signs.append("its \(kind) header promises \(announced) bytes but it holds \(size): it is cut short")
        }
        if report.format == "OGG" || report.format == "Opus",
            let tail = FileChunks.suffix(ofFileAt: path, count: 1 << 16), OggPages.lastPageEndsStream(tail) == false
        {
            signs.append("its last Ogg page does not end the stream: it is cut short")
        }
        if let late = report.chapters.first(where: { $0.seconds > report.durationSeconds }) {
            signs.append(String(format: "the chapter '%@' at %.3f s lies after the end (%.3f s)", late.name, late.seconds, report.durationSeconds))
        }
        return signs
    }

    /// Seconds from `HH:MM:SS.mmm`.
    static func clockSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}
