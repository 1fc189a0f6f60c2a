// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What a video render wrote.
public struct VideoReport: Sendable, Hashable, Codable {
    public var output: String
    public var width: Int
    public var height: Int
    public var fps: Int
    public var videoFrames: Int64
    /// The audio's frames at `rate`: the session's length, which the video's equals.
    public var audioFrames: Int64
    public var rate: Int
    public var durationSeconds: Double
    /// The loudness gain of the mix, in dB, as the audio render applies it.
    public var gainDecibels: Double
}
