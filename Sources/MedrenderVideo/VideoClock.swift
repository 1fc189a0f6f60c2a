import MedrenderCore
import MedrenderPreview

/// The video's frames on the audio's clock: video frame `k` shows the session as it is at audio
/// frame ⌊k × rate / fps⌋, its first instant, so the frame in which a cue sheet's time falls is the
/// first to show what starts then. Integers throughout; seconds only for the timeline's ease.
public struct VideoClock: Hashable, Sendable {
    /// Audio frames per second, and in the session.
    public let rate: Int
    public let totalAudioFrames: Int64
    /// Video frames per second.
    public let fps: Int

    public init(rate: Int, totalAudioFrames: Int64, fps: Int) {
        self.rate = rate
        self.totalAudioFrames = totalAudioFrames
        self.fps = fps
    }

    /// Video frames in the session: enough to cover every audio frame, the last one cut short
    /// where the audio ends (`lastFrameAudioFrames`).
    public var frameCount: Int64 {
        (totalAudioFrames * Int64(fps) + Int64(rate) - 1) / Int64(rate)
    }

    /// The audio frame video frame `k` starts at.
    public func audioFrame(ofVideoFrame k: Int64) -> Int64 {
        k * Int64(rate) / Int64(fps)
    }

    /// The video frame audio frame `frame` falls in.
    public func videoFrame(ofAudioFrame frame: Int64) -> Int64 {
        // The largest k with audioFrame(k) <= frame.
        var k = frame * Int64(fps) / Int64(rate)
        while audioFrame(ofVideoFrame: k + 1) <= frame { k += 1 }
        while k > 0, audioFrame(ofVideoFrame: k) > frame { k -= 1 }
        return k
    }
}

/// What one frame of the video shows, from the session's timeline: the circle's level (eased as
/// the preview page eases it), the phase's words in the session's language, the section, the
/// session's progress and the words the voice says.
public struct PictureState: Hashable, Sendable, Codable {
    /// The circle's level, 0 (empty) to 1 (full).
    public var level: Double
    /// "Breathe in", "Hold"…, in the session's language; empty outside the breathing.
    public var label: String
    /// The section's name, in the session's language.
    public var section: String
    /// The session's progress, 0…1.
    public var progress: Double
    /// The words the voice says at this frame (`VideoCaption`); empty when it is silent.
    public var caption = ""
}

/// Turns video frames into what they show.
public struct BreathingPicture: Sendable {
    public let timeline: SessionTimeline
    public let clock: VideoClock
    public let words: Words
    /// The spoken lines, sorted by start.
    public let captions: [VideoCaption]

    public init(timeline: SessionTimeline, fps: Int, words: Words, captions: [VideoCaption] = []) {
        self.timeline = timeline
        self.clock = VideoClock(rate: timeline.rate, totalAudioFrames: timeline.totalFrames, fps: fps)
        self.words = words
        self.captions = captions
    }

    /// What video frame `k` shows.
    public func state(ofFrame k: Int64) -> PictureState {
        let audio = clock.audioFrame(ofVideoFrame: k)
        let seconds = Double(audio) / Double(timeline.rate)
        let moment = timeline.moment(at: seconds)
        let label = timeline.phaseIndex(at: seconds).map { words.instruction(timeline.phases[$0].kind) } ?? ""
        let progress = timeline.totalFrames > 0 ? min(1, Double(audio) / Double(timeline.totalFrames)) : 1
        return PictureState(level: moment.level, label: label, section: moment.section, progress: progress,
                            caption: VideoCaption.text(at: audio, in: captions))
    }
}
