import Foundation
import MedrenderTestSupport
import Testing

/// What the video refuses: one line saying what and how to fix it, a sysexits code, and no file
/// written (a file already at the output stays as it was).
@Suite struct VideoBadInputTests {
    static let session = ["--preset", "box-breath", "--minutes", "1", "--rate", "8000"]

    /// Runs `arguments` in a folder holding only a good file at `keep.mp4`; returns the result and
    /// whether the folder is as it was.
    static func refused(_ arguments: (TemporaryDirectory) -> [String]) throws -> (ProcessResult, untouched: Bool) {
        let dir = TemporaryDirectory("video-bad")
        let keep = dir.write("keep.mp4", "a video already here")
        let command = arguments(dir)  // which may write the test's own inputs first
        let before = dir.contents()
        let result = try runMedrender(command)
        let untouched = dir.contents() == before && (try? String(contentsOfFile: keep, encoding: .utf8)) == "a video already here"
        return (result, untouched)
    }

    @Test(arguments: [
        (["--size", "126x720"], "--size 126x720: the width 126 px is out of range; give 128 to 3840 px"),
        (["--size", "3842x2160"], "--size 3842x2160: the width 3842 px is out of range; give 128 to 3840 px"),
        (["--size", "640x4000"], "--size 640x4000: the height 4000 px is out of range; give 128 to 3840 px"),
        (["--size", "641x360"], "--size 641x360: the width 641 px is odd; give an even number of pixels"),
        (["--size", "huge"], "--size huge is not a size; give 720p, 1080p, square, vertical or WIDTHxHEIGHT such as 640x360"),
        (["--fps", "0"], "--fps 0 is out of range; give 1 to 60 frames a second"),
        (["--fps", "61"], "--fps 61 is out of range; give 1 to 60 frames a second"),
        (["--background", "#12345"], "--background #12345 is not a colour; give #rrggbb, #rrggbb-#rrggbb (a gradient) or a PNG file"),
    ])
    func outOfRangeSettingsAreUsageErrors(options: [String], message: String) throws {
        let (result, untouched) = try Self.refused { ["video"] + Self.session + options + ["-o", $0.file("keep.mp4")] }
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(untouched)
    }

    /// A rate AAC cannot carry is a usage error before anything is written, from `video` and from
    /// `render --video` (whose audio is not written either); WebM takes it.
    @Test func aRateThatAACCannotCarryIsRefusedBeforeAnythingIsWritten() throws {
        let session = ["--preset", "box-breath", "--minutes", "0.3", "--rate", "8800"]
        let message = "--rate 8800 cannot be carried by AAC in an MP4; give one of 8000, 11025"
        let (video, videoUntouched) = try Self.refused { ["video"] + session + ["-o", $0.file("keep.mp4")] }
        #expect(video.status == 64 && video.stderr.contains(message), "\(video.status): \(video.stderr)")
        #expect(videoUntouched)
        let (render, renderUntouched) = try Self.refused { ["render"] + session + ["-o", $0.file("a.ogg"), "--video", $0.file("keep.mp4")] }
        #expect(render.status == 64 && render.stderr.contains(message), "\(render.status): \(render.stderr)")
        #expect(renderUntouched)
        let (webm, _) = try Self.refused { ["video"] + session + ["--size", "320x240", "--fps", "5", "-o", $0.file("a.webm")] }
        #expect(webm.status == 0, "\(webm.stderr)")
    }

    @Test(arguments: ["session.ogg", "session.mkv", "session"])
    func anOutputThatIsNotAVideoContainerIsRefused(name: String) throws {
        let (result, untouched) = try Self.refused { ["video"] + Self.session + ["-o", $0.file(name)] }
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("is not a video container medrender writes; end the name in .mp4 or .webm"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 || result.stderr.contains("Usage:"), "\(result.stderr)")
        #expect(untouched)
    }

    @Test func renderRefusesAVideoThatIsNotAContainerBeforeWritingTheAudio() throws {
        let (result, untouched) = try Self.refused { ["render"] + Self.session + ["-o", $0.file("a.ogg"), "--video", $0.file("a.avi")] }
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--video"), "\(result.stderr)")
        #expect(untouched)
    }

    @Test func aBackgroundImageThatIsMissingOrNotAnImageIsRefused() throws {
        let (missing, untouchedMissing) = try Self.refused {
            ["video"] + Self.session + ["--background", $0.file("nowhere.png"), "-o", $0.file("keep.mp4")]
        }
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("nowhere.png: no such file; give a PNG image"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        #expect(untouchedMissing)

        let (broken, untouchedBroken) = try Self.refused {
            let text = $0.write("picture.png", "not a picture")
            return ["render"] + Self.session + ["-o", $0.file("a.ogg"), "--video", $0.file("keep.mp4"), "--background", text]
        }
        #expect(broken.status == 65, "\(broken.stderr)")
        #expect(broken.stderr.contains("picture.png: not a PNG image medrender can read"), "\(broken.stderr)")
        #expect(broken.stderr.split(separator: "\n").count == 1, "\(broken.stderr)")
        // Not the audio either: the picture is checked before anything is written.
        #expect(untouchedBroken)
    }
}
