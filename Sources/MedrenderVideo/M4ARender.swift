// SPDX-License-Identifier: Apache-2.0
import Foundation
import Medrender
import MedrenderCore
import MedrenderIO

/// A session as an M4A, AAC in MP4 — the audio file of Apple's apps — with the preset's tags and
/// a chapter for each section. The mix is a video's audio (`MasterStream`: pass 1, the limited
/// pass, the loudness gain and the limiter, with AAC's headroom under the ceiling), encoded by
/// `medrender-media` with FFmpeg's AAC encoder at 80 kb/s a channel, at the session's rate. The
/// file is written beside its place and renamed into it once complete.
public enum M4ARender {
    /// Whether `path` names an M4A.
    public static func names(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".m4a")
    }

    /// Refuses a `rate` AAC cannot carry, before anything is prepared.
    public static func check(rate: Int) throws(ParameterError) {
        guard VideoRender.aacRates.contains(rate) else {
            throw ParameterError("rate", value: "\(rate)", "cannot be carried by AAC in an M4A; give one of "
                                 + VideoRender.aacRates.map(String.init).joined(separator: ", ") + " Hz")
        }
    }

    /// Writes `prepared`'s mix to `path` as an M4A, with its cue sheets at `cueSheets`. The sheets
    /// are written first, beside their places (a path that cannot take one fails before the mix is
    /// rendered), and put in place with the M4A once it is complete: a render that fails changes
    /// none of them. `beforePlacing` (the M4A's video) runs once the M4A is complete and before
    /// anything is put in place, so that when it fails the M4A and its sheets are left as they were.
    public static func write(_ prepared: PreparedRender, to path: String, cueSheets: [String] = [],
                             beforePlacing: (() throws -> Void)? = nil) throws -> M4AReport {
        let plan = prepared.plan
        try check(rate: plan.rate)
        let sheets = try cueSheets.map { sheet throws(IOError) in try CueSheetWriter.prepare(plan, to: sheet) }
        let file = try AtomicOutputFile(path: path)
        let master = MasterStream(prepared, headroomDecibels: VideoRender.headroomDecibels(.mp4, rate: plan.rate))
        let job = M4AJob(plan: plan, tags: prepared.tags, path: file.temporaryPath)
        try MediaRun.run("m4a", job, master: master, channels: plan.channels)
        try beforePlacing?()
        try MediaRun.commit(file, path: path)
        for sheet in sheets { try sheet.commit() }
        return M4AReport(output: path, audioFrames: plan.totalFrames, rate: plan.rate, channels: plan.channels,
                         durationSeconds: Double(plan.totalFrames) / Double(plan.rate), chapters: job.chapters.count,
                         gainDecibels: master.gainDecibels)
    }
}

/// What an M4A render wrote.
public struct M4AReport: Sendable, Hashable, Codable {
    public var output: String
    /// The session's frames at `rate`.
    public var audioFrames: Int64
    public var rate: Int
    public var channels: Int
    public var durationSeconds: Double
    public var chapters: Int
    /// The loudness gain of the mix, in dB.
    public var gainDecibels: Double
}
