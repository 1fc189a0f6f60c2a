// SPDX-License-Identifier: Apache-2.0
import Foundation
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
