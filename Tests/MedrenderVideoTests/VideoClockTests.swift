import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderPreview
@testable import MedrenderVideo
import Testing

/// The video's frames on the audio's clock, the picture's words, and the settings' checks.
@Suite struct VideoClockTests {
    /// Every audio frame falls in exactly one video frame, the one whose first instant is at or before it.
    @Test(arguments: [(48000, 30), (44100, 30), (16000, 24), (8000, 7), (44100, 60), (22050, 1)])
    func everyAudioFrameFallsInTheVideoFrameThatStartsAtOrBeforeIt(rate: Int, fps: Int) {
        let clock = VideoClock(rate: rate, totalAudioFrames: Int64(rate) * 3 + 17, fps: fps)
        for audio in [Int64(0), 1, Int64(rate / fps) - 1, Int64(rate / fps), Int64(rate / fps) + 1, Int64(rate), clock.totalAudioFrames - 1] {
            let k = clock.videoFrame(ofAudioFrame: audio)
            #expect(clock.audioFrame(ofVideoFrame: k) <= audio)
            #expect(clock.audioFrame(ofVideoFrame: k + 1) > audio)
        }
        // The last frame covers the last audio frame; no frame starts past the end.
        #expect(clock.videoFrame(ofAudioFrame: clock.totalAudioFrames - 1) == clock.frameCount - 1)
        #expect(clock.audioFrame(ofVideoFrame: clock.frameCount - 1) < clock.totalAudioFrames)
        #expect(clock.audioFrame(ofVideoFrame: clock.frameCount) >= clock.totalAudioFrames)
    }

    @Test func aFifteenMinuteSessionAt30fpsHas27000Frames() {
        #expect(VideoClock(rate: 48000, totalAudioFrames: 48000 * 900, fps: 30).frameCount == 27000)
    }

    @Test(arguments: [("720p", 1280, 720), ("1080p", 1920, 1080), ("square", 1080, 1080), ("vertical", 1080, 1920), ("640x360", 640, 360),
                      ("128x3840", 128, 3840)])
    func sizesByNameAndBySides(text: String, width: Int, height: Int) throws {
        #expect(try VideoSize.parse(text) == VideoSize(width: width, height: height))
    }

    @Test(arguments: ["126x720", "3842x720", "640x361", "640", "x", "640x-2", ""])
    func sizesOutOfRangeOrMalformedAreUsageErrors(text: String) {
        #expect(throws: RenderError.self) { try VideoSize.parse(text) }
    }

    @Test func containersByExtensionOnly() {
        #expect(VideoContainer.forPath("a/b.MP4") == .mp4)
        #expect(VideoContainer.forPath("b.webm") == .webm)
        #expect(VideoContainer.forPath("b.mkv") == nil)
        #expect(VideoContainer.forPath(".mp4") == nil)
        #expect(VideoContainer.forPath("mp4") == nil)
    }

    @Test func backgroundsAreColoursGradientsOrImages() throws {
        #expect(try VideoBackground.parse("#ff0000") == .colour(1, 0, 0))
        #expect(try VideoBackground.parse("#000000-#ffffff") == .gradient(top: [0, 0, 0], bottom: [1, 1, 1]))
        #expect(try VideoBackground.parse("cover.png") == .image(path: "cover.png"))
        #expect(throws: RenderError.self) { try VideoBackground.parse("#ff00") }
        #expect(throws: RenderError.self) { try VideoBackground.parse("#ff0000-#00ff00-#0000ff") }
    }

    /// The picture says the phase in the session's language, and its level is the preview's.
    @Test func thePictureSpeaksTheSessionsLanguage() throws {
        let pattern = BreathPattern(milliseconds: 4000, 2000, 4000, 0)
        var session = Session(name: "t", segments: [PatternSegment(pattern: pattern)], settle: .seconds(2), closing: .seconds(2))
        let german = try #require(LanguageCatalog.stock.language("de"))
        session.language = german
        let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: .cycles(2)))
        let timeline = SessionTimeline(plan: plan, title: "t")
        let picture = BreathingPicture(timeline: timeline, fps: 10, words: german.words)
        let inhale = try #require(timeline.phases.first { $0.kind == .inhale })
        let middle = picture.clock.videoFrame(ofAudioFrame: Int64((inhale.startSeconds + 2) * 8000))
        let state = picture.state(ofFrame: middle)
        #expect(state.label == "Einatmen")
        #expect(state.section == "Atmung")
        let seconds = Double(picture.clock.audioFrame(ofVideoFrame: middle)) / 8000
        #expect(state.level == timeline.moment(at: seconds).level)
        #expect(picture.state(ofFrame: 0).label.isEmpty && picture.state(ofFrame: 0).section == "Ankommen")
    }
}
