import Foundation
import MedrenderTestSupport
import Testing

/// Cover art (`--cover`, `metadata.cover` in a preset) in every format that holds one, read back
/// by ffmpeg, an independent reader: MP3 (ID3 APIC), FLAC (PICTURE), OGG and Opus
/// (METADATA_BLOCK_PICTURE). WAV holds none, and says so.
@Suite(.enabled(if: which("ffmpeg") != nil && which("ffprobe") != nil, "needs ffmpeg and ffprobe"))
struct CoverArtTests {
    /// A 64 × 48 image made by ffmpeg.
    static func image(_ path: String) throws {
        let result = try runProcess(which("ffmpeg")!, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=1",
                                                        "-frames:v", "1", path])
        try #require(result.status == 0, "ffmpeg: \(result.stderr)")
    }

    /// The attached picture of `path` as ffmpeg extracts it, and its width and height as ffprobe says.
    static func picture(of path: String, dir: TemporaryDirectory, ext: String) throws -> (bytes: Data?, size: String) {
        let probe = try runProcess(which("ffprobe")!, ["-v", "error", "-select_streams", "v", "-show_entries",
                                                        "stream=width,height:stream_disposition=attached_pic", "-of", "csv=p=0", path])
        let out = dir.file("extracted-\(UUID().uuidString).\(ext)")
        let extract = try runProcess(which("ffmpeg")!, ["-v", "error", "-y", "-i", path, "-map", "0:v", "-c", "copy", "-f", "image2", out])
        return (extract.status == 0 ? FileManager.default.contents(atPath: out) : nil, probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: [("mp3", "png"), ("flac", "jpg"), ("ogg", "png"), ("opus", "jpg")])
    func theCoverIsInTheFileByteForByte(format: String, image: String) throws {
        let dir = TemporaryDirectory("cover")
        let cover = dir.file("cover.\(image)")
        try Self.image(cover)
        let out = dir.file("out.\(format)")
        let result = try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "16000", "--cover", cover, "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let (bytes, size) = try Self.picture(of: out, dir: dir, ext: image)
        #expect(bytes == FileManager.default.contents(atPath: cover), "the picture ffmpeg finds is the file's bytes")
        #expect(size == "64,48,1", "ffprobe: \(size)")
        // The audio and the chapters are still read as before.
        let inspect = try runMedrender(["inspect", "--json", out])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
        #expect((report?["chapters"] as? [Any])?.isEmpty == false, "\(inspect.stdout)")
        // Without a cover, no picture.
        let plain = dir.file("plain.\(format)")
        #expect(try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "16000", "-o", plain]).status == 0)
        #expect(try Self.picture(of: plain, dir: dir, ext: image).size.isEmpty)
    }

    @Test func aPresetsCoverIsBesideItAndWAVSaysItHoldsNone() throws {
        let dir = TemporaryDirectory("cover-preset")
        try FileManager.default.createDirectory(atPath: dir.file("art"), withIntermediateDirectories: true)
        try Self.image(dir.file("art/front.png"))
        dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nmetadata: { title: Mine, cover: art/front.png }\n")
        // Run from another folder: the cover is found beside the preset.
        let out = dir.file("out.ogg")
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", "16000", "-o", out], in: "/")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.picture(of: out, dir: dir, ext: "png").bytes == FileManager.default.contents(atPath: dir.file("art/front.png")))
        let wav = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", "16000", "-o", dir.file("out.wav")])
        #expect(wav.status == 0, "\(wav.stderr)")
        #expect(wav.stderr.contains("warning: WAV holds no cover art"), "\(wav.stderr)")
    }

    @Test(arguments: [
        ("text.png", Array("not an image\n".utf8), 65, "is not a PNG or JPEG image"),
        ("cut.png", nil, 65, "is a PNG image cut short"),
        ("missing.png", [], 66, "no such cover image"),
    ] as [(String, [UInt8]?, Int32, String)])
    func aBadCoverIsAClearErrorAndWritesNothing(name: String, bytes: [UInt8]?, code: Int32, message: String) throws {
        let dir = TemporaryDirectory("cover-bad")
        let cover = dir.file(name)
        if let bytes, !bytes.isEmpty {
            FileManager.default.createFile(atPath: cover, contents: Data(bytes))
        } else if bytes == nil {
            try Self.image(dir.file("whole.png"))
            let whole = try Data(contentsOf: URL(fileURLWithPath: dir.file("whole.png")))
            FileManager.default.createFile(atPath: cover, contents: whole.prefix(whole.count - 20))
        }
        let result = try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "16000", "--cover", cover, "-o", dir.file("out.mp3")])
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains("\(name): \(message)"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp3")))
        let preset = try runMedrender(["validate", dir.write("p.yaml", "pattern: 4-0-4-0\nmetadata: { cover: '' }\n")])
        #expect(preset.status == 65 && preset.stderr.contains("cover"), "\(preset.stderr)")
        // A check reads the cover as a render does: a preset naming this one is refused alike.
        let named = try runMedrender(["validate", dir.write("named.yaml", "pattern: 4-0-4-0\nmetadata: { cover: \(name) }\n")])
        #expect(named.status == code && named.stderr.contains("\(name): \(message)"), "\(named.stderr)")
    }
}
