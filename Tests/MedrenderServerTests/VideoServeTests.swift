import Foundation
import MedrenderTestSupport
import Testing

/// The server's `/video`: the command line's video over HTTP, with its length and ranges, read
/// back by ffprobe; bad picture parameters are a 400 with the command line's words.
@Suite struct VideoServeTests {
    static let ffprobe = which("ffprobe")

    @Test(.enabled(if: ffprobe != nil, "ffprobe is not installed: `make test-deps` installs ffmpeg"))
    func theServerServesTheSessionsVideo() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let session = "preset=box-breath&minutes=1&rate=8000"
        let got = try server.get("/video?\(session)&container=webm&size=256x144&fps=5&background=%23203040", name: "video")
        #expect(got.status == 200, "\(String(decoding: got.body, as: UTF8.self))")
        #expect(got.headers.lowercased().contains("content-type: video/webm"), "\(got.headers)")
        #expect(got.headers.lowercased().contains("content-length: \(got.body.count)"), "\(got.headers)")
        let file = server.dir.file("served.webm")
        try got.body.write(to: URL(fileURLWithPath: file))
        let probe = try runProcess(try #require(Self.ffprobe), ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file])
        #expect(probe.stdout.contains("vp9,256,144") && probe.stdout.contains("opus"), "\(probe.stdout) \(probe.stderr)")
        // A range, as a <video> asks while it seeks.
        let part = try server.get("/video?\(session)&container=webm&size=256x144&fps=5&background=%23203040", name: "range", curl: ["-r", "100-199"])
        #expect(part.status == 206 && part.body.count == 100)
        #expect(part.body == got.body[100..<200], "the same video, byte for byte")
        // The range came from the render cache: one video in it, one render, one hit; the ETag
        // answers a repeat with a 304.
        let entries = try FileManager.default.contentsOfDirectory(atPath: server.dir.file("cache")).filter { $0.hasSuffix(".webm") && !$0.hasPrefix(".") }
        #expect(entries.count == 1, "\(entries)")
        let metrics = String(decoding: try server.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("medrender_cache_hits_total 1") && metrics.contains("medrender_cache_misses_total 1"), "\(metrics)")
        let tag = try #require(got.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5)
                                .trimmingCharacters(in: .whitespaces))
        let again = try server.get("/video?\(session)&container=webm&size=256x144&fps=5&background=%23203040", name: "again",
                                   curl: ["-H", "If-None-Match: \(tag)"])
        #expect(again.status == 304 && again.body.isEmpty)
        // Another picture is another video.
        let other = try server.get("/video?\(session)&container=webm&size=256x144&fps=6&background=%23203040", name: "other")
        #expect(other.status == 200 && other.body != got.body)
        #expect(!other.headers.contains(tag), "\(other.headers)")
    }

    @Test(arguments: [
        ("size=100x100", "size=100x100: the width 100 px is out of range; give 128 to 3840 px"),
        ("fps=90", "fps=90 is out of range; give 1 to 60 frames a second"),
        ("container=avi", "container=avi: the video is mp4 or webm"),
        ("fps=2x", "fps=2x is not a whole number"),
        ("size=big", "size=big is not a size"),
        ("fps=30&fps=25", "fps is given twice; give it once"),
        ("background=/etc/passwd", "background=/etc/passwd: the service takes a colour"),
    ])
    func badPictureParametersAreA400(query: String, message: String) throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let got = try server.get("/video?preset=box-breath&minutes=1&rate=8000&\(query)")
        #expect(got.status == 400)
        #expect(String(decoding: got.body, as: UTF8.self).contains(message), "\(String(decoding: got.body, as: UTF8.self))")
    }
}
