// SPDX-License-Identifier: Apache-2.0
import Foundation
import Medrender
import MedrenderCore

/// A video as medrender hands it to `medrender-media video`, which draws and encodes it: this, as
/// JSON, is the program's argument. The mix comes on its standard input, in the blocks
/// `MasterStream` gives (each a frame count, `UInt32`, then the frames, interleaved Float32, in
/// this machine's byte order); on descriptor 3 come the spoken lines (`[VideoCaption]`, one line
/// in JSON) and then what each video frame shows, a `PictureState` a line in JSON, one for each
/// frame in order. The program writes the frames done on its standard
/// output, a number a line, and writes the file at `path`, which exists, empty.
public struct VideoJob: Codable, Sendable, Hashable {
    public var settings: VideoSettings
    /// The mix's sample rate in hertz, and its channels.
    public var rate: Int
    public var channels: Int
    /// The mix's frames: the session's length.
    public var totalAudioFrames: Int64
    /// The file to write.
    public var path: String

    /// The descriptor the pictures come on, in the program.
    public static let pictureDescriptor: Int32 = 3

    /// The video of `plan`'s mix, written at `path`.
    public init(settings: VideoSettings, plan: RenderPlan, path: String) {
        (self.settings, self.path) = (settings, path)
        (rate, channels, totalAudioFrames) = (plan.rate, plan.channels, plan.totalFrames)
    }

    /// The video's clock.
    public var clock: VideoClock { VideoClock(rate: rate, totalAudioFrames: totalAudioFrames, fps: settings.fps) }
}

/// A section of an M4A, on the mix's clock, its title as the text.
public typealias MediaChapter = VideoCaption

/// An M4A (AAC in MP4) as medrender hands it to `medrender-media m4a`: this, as JSON, is the
/// program's argument; the mix comes on its standard input as a video's does, and the program
/// writes the file at `path`, which exists, empty.
public struct M4AJob: Codable, Sendable, Hashable {
    /// The file to write, and its chapters: a section each, on the mix's clock.
    public var path: String
    public var chapters: [MediaChapter]
    /// The file's tags, each a key (`title`, `artist`, `album`, `date`, `comment`) and its value.
    public var tags: [[String]]
    /// The mix's rate in hertz, channels and frames.
    public var rate: Int, channels: Int, totalAudioFrames: Int64

    /// The M4A of `plan`'s mix with `tags`' words and chapters, written at `path`.
    public init(plan: RenderPlan, tags: OutputTags, path: String) {
        (rate, channels, totalAudioFrames, self.path) = (plan.rate, plan.channels, plan.totalFrames, path)
        self.tags = [("title", tags.title), ("artist", tags.artist), ("album", tags.album), ("date", tags.date), ("comment", tags.comment)]
            .compactMap { key, value in value.flatMap { $0.isEmpty ? nil : [key, $0] } }
        let ends = tags.chapters.dropFirst().map(\.frame) + [plan.totalFrames]
        chapters = zip(tags.chapters, ends).map { MediaChapter(frame: $0.frame, endFrame: $1, text: $0.name) }
    }
}
