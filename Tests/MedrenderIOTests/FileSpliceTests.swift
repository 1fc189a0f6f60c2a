import Foundation
import MedrenderIO
import MedrenderTestSupport
import Testing

/// Headers grown in place: the bytes after them move along intact.
@Suite struct FileSpliceTests {
    /// Writes `bytes` to a file in `dir`, runs `body` on its open descriptor, returns the result.
    func edit(_ bytes: [UInt8], in dir: TemporaryDirectory, _ body: (Int32, String) throws -> Void) throws -> [UInt8] {
        let path = dir.file("f.bin")
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        try body(fd, path)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Audio stand-in: 3 MiB of a pattern, so the move crosses several 1-MiB chunks.
    static let audio: [UInt8] = (0..<(3 << 20 + 123)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    @Test(arguments: [0, 1, 7, 5000])
    func replaceGrowsOrShrinksTheHeadAndKeepsTheTail(newLength: Int) throws {
        let dir = TemporaryDirectory("splice")
        let head = [UInt8](repeating: 0xAA, count: 100)
        let out = try edit(head + Self.audio, in: dir) { fd, path in
            try FileSplice.replace(0..<100, with: [UInt8](repeating: 0x55, count: newLength), descriptor: fd, path: path)
        }
        #expect(out.count == newLength + Self.audio.count)
        #expect(out.prefix(newLength).allSatisfy { $0 == 0x55 })
        #expect(Array(out.dropFirst(newLength)) == Self.audio)
    }

    @Test func flacCommentsAreAddedToTheBlockOrAsOne() throws {
        let dir = TemporaryDirectory("flac")
        let streamInfo: [UInt8] = [0x00, 0, 0, 34] + [UInt8](repeating: 1, count: 34)
        func comment(_ text: String) -> [UInt8] { withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian, Array.init) + Array(text.utf8) }
        let vorbis = comment("lib") + withUnsafeBytes(of: UInt32(1).littleEndian, Array.init) + comment("title=x")
        let withBlock = Array("fLaC".utf8) + streamInfo + [0x84, 0, 0, UInt8(vorbis.count)] + vorbis
        let bare = Array("fLaC".utf8) + [0x80] + streamInfo.dropFirst()
        for file in [withBlock, bare] {
            let out = try edit(file + Self.audio, in: dir) { fd, path in
                try FlacComments.append([("CHAPTER001", "00:00:00.000"), ("CHAPTER001NAME", "Settle")], descriptor: fd, path: path)
            }
            let comments = try #require(FlacComments.comments(Array(out.prefix(4096))))
            #expect(comments.suffix(2) == ["CHAPTER001=00:00:00.000", "CHAPTER001NAME=Settle"])
            #expect(comments.count == (file == bare ? 2 : 3))
            #expect(Array(out.suffix(Self.audio.count)) == Self.audio)
        }
    }

    /// An ID3v2.3 tag with an extended header, a frame and padding gets its chapters after the
    /// frame; a file with no tag gets one; the audio after is intact.
    @Test func id3ChaptersGoIntoTheTag() throws {
        let dir = TemporaryDirectory("id3")
        let title: [UInt8] = Array("TIT2".utf8) + [0, 0, 0, 3, 0, 0] + [0] + Array("ab".utf8)
        let extended: [UInt8] = [0, 0, 0, 6, 0, 0, 0, 0, 0, 0]
        let body = extended + title + [UInt8](repeating: 0, count: 50)
        let tagged = Array("ID3".utf8) + [3, 0, 0x40, 0, 0, 0, UInt8(body.count)] + body
        let chapters = [ID3Chapters.Chapter(startMilliseconds: 0, endMilliseconds: 20000, title: "Settle"),
                        ID3Chapters.Chapter(startMilliseconds: 20000, endMilliseconds: 61000, title: "Ruhe — Atem")]
        for file in [tagged, []] {
            let out = try edit(file + Self.audio, in: dir) { fd, path in
                try ID3Chapters.insert(chapters, descriptor: fd, path: path)
            }
            #expect(ID3Chapters.chapters(Array(out.prefix(4096))) == chapters)
            #expect(Array(out.suffix(Self.audio.count)) == Self.audio)
            if !file.isEmpty {
                #expect(Array(out[10..<(10 + extended.count + title.count)]) == extended + title, "the extended header and the frame stay first")
            }
        }
    }
}
