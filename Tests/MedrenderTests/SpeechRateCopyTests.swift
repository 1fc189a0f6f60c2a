import Foundation
import Medrender
import MedrenderIO
import MedrenderTestSupport
import Testing

/// A spoken line resampled to a render's rate is kept in the speech cache, in a folder for the rate, and read back
/// instead of being resampled again: the same bytes; a copy that is not whole is made again.
@Suite struct SpeechRateCopyTests {
    @Test func aLineResampledOnceIsReadBackAtThatRate() throws {
        let dir = TemporaryDirectory("speech-rate-copy")
        let file = GuidedSpeechTests.preset(dir, voice: "{ engine: espeak-ng }",
                                            lines: "    - say: \"Welcome.\"\n    - say: \"Breathe in slowly.\"\n")
        let cache = dir.file("cache")
        func render() throws -> Data? {
            try SpeechSynthesizer.$cacheDirectoryOverride.withValue(cache) {
                _ = try Renderer.render(try GuidedSpeechTests.request(file, dir: dir, rate: 16000))
            }
            return FileManager.default.contents(atPath: dir.file("out.wav"))
        }
        let first = try render()
        #expect(first != nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(cache)/16000")
        let copies = names.filter { $0.hasSuffix(".wav") }.map { "16000/\($0)" }
        #expect(copies.count >= 2, "\(names)")
        for copy in copies {
            // Its line's (espeak-ng speaks at 22050 Hz), at the render's rate.
            let line = try SoundFileReader(path: "\(cache)/\(copy.dropFirst("16000/".count))")
            let kept = try SoundFileReader(path: "\(cache)/\(copy)")
            #expect(line.rate == 22050 && kept.rate == 16000 && kept.channels == line.channels)
            #expect(kept.frameCount == Int64(Resampler.targetLength(frameCount: Int(line.frameCount), from: line.rate, to: 16000)))
        }
        // Read, not made again: each copy is the same file (a new one would be renamed into place).
        func inodes() throws -> [Int] {
            try copies.map { try FileManager.default.attributesOfItem(atPath: "\(cache)/\($0)")[.systemFileNumber] as? Int ?? -1 }
        }
        let before = try inodes()
        #expect(try render() == first)
        #expect(try inodes() == before)
        // A copy cut short is not read: its line is resampled again and the copy made whole.
        let copy = "\(cache)/\(copies[0])"
        let whole = try #require(FileManager.default.contents(atPath: copy))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: copy))
        #expect(try render() == first)
        #expect(FileManager.default.contents(atPath: copy) == whole)
        #expect(try inodes()[0] != before[0])
    }
}
