import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// M4A/AAC voice memos read through libavformat/libavcodec as every other sound is: the decoded
/// audio is the source within AAC's noise, at its rate and length, and a broken file is a clear
/// error. Fixtures are made here with the `ffmpeg` program (its AAC encoder, in M4A or ADTS).
@Suite(.enabled(if: which("ffmpeg") != nil, "needs ffmpeg"))
struct M4AReaderTests {
    /// Two tones (one a channel), encoded by ffmpeg as AAC at 128 kbit/s per channel.
    static func fixture(_ dir: TemporaryDirectory, name: String, rate: Int, channels: Int, frames: Int,
                        options: [String] = []) throws -> (path: String, source: [Float]) {
        let source = sineWave(frames: frames, rate: rate, frequencies: Array([440.0, 660.0].prefix(channels)), amplitude: 0.4)
        let wave = dir.file("\(name)-source.wav")
        try writeSoundFile(wave, format: .float32, channels: channels, rate: rate, samples: source)
        let path = dir.file(name)
        let result = try runProcess(which("ffmpeg")!, ["-v", "error", "-y", "-i", wave, "-c:a", "aac", "-b:a", "\(128 * channels)k"]
                                        + options + [path])
        try #require(result.status == 0, "ffmpeg: \(result.stderr)")
        return (path, source)
    }

    /// The error of `decoded` against `source` over the middle (AAC smears the sudden start and
    /// end), as a signal-to-noise ratio in dB.
    static func signalToNoise(_ decoded: [Float], _ source: [Float], channels: Int, lag: Int = 0) -> Double {
        let frames = source.count / channels
        var signal = 0.0, noise = 0.0
        for f in 2048..<(frames - 2048) {
            for c in 0..<channels {
                let s = Double(source[f * channels + c]), d = Double(decoded[(f + lag) * channels + c])
                signal += s * s
                noise += (s - d) * (s - d)
            }
        }
        return 10 * log10(signal / max(noise, 1e-30))
    }

    @Test("an M4A voice memo decodes to its source within AAC's noise, at its rate and length",
          arguments: [(48000, 1, 48000 * 2 + 1), (44100, 2, 44100), (16000, 1, 16000 * 3)])
    func decodesToTheSource(rate: Int, channels: Int, frames: Int) throws {
        let dir = TemporaryDirectory("m4a")
        let (path, source) = try Self.fixture(dir, name: "memo.m4a", rate: rate, channels: channels, frames: frames)
        let reader = try SoundFileReader(path: path)
        #expect(reader.rate == rate && reader.channels == channels)
        #expect(reader.mediaFormatName == "M4A (AAC)")
        // The length the container's edit list gives, as ffprobe reads it (ffmpeg's encoder may
        // leave out an odd last frame), not the last packet's padding to 1024.
        let probe = try runProcess(which("ffprobe")!, ["-v", "error", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", path])
        let length = try #require(Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "ffprobe: \(probe.stdout)")
        #expect(abs(length - frames) <= 1)
        #expect(reader.frameCount == Int64(length), "the container's length")
        let asset = try reader.readAll()
        #expect(asset.channels == channels)
        #expect(asset.frameCount == length, "the edit list's length, not the last packet's padding")
        let snr = Self.signalToNoise(asset.samples, source, channels: channels)
        #expect(snr > 30, "AAC at 128 kbit/s keeps two tones 30 dB above its noise; got \(snr) dB")
    }

    @Test func rawAACInADTSIsReadToo() throws {
        let dir = TemporaryDirectory("aac")
        let frames = 48000
        let (path, source) = try Self.fixture(dir, name: "memo.aac", rate: 48000, channels: 1, frames: frames)
        let asset = try SoundFileReader(path: path).readAll()
        // ADTS has no edit list: the encoder's 1024 frames of delay and the last packet's padding stay.
        #expect(asset.frameCount >= frames && asset.frameCount <= frames + 2048, "\(asset.frameCount)")
        let best = (0...2048).max { Self.signalToNoise(asset.samples, source, channels: 1, lag: $0) < Self.signalToNoise(asset.samples, source, channels: 1, lag: $1) }!
        #expect(Self.signalToNoise(asset.samples, source, channels: 1, lag: best) > 30)
        // Found by its first bytes too, whatever its name.
        let renamed = dir.file("memo-without-extension")
        try FileManager.default.copyItem(atPath: dir.file("memo.aac"), toPath: renamed)
        #expect(try SoundFileReader(path: renamed).readAll().samples == asset.samples)
        let m4a = try Self.fixture(dir, name: "memo2.m4a", rate: 48000, channels: 1, frames: frames)
        let renamedM4A = dir.file("memo2.bin")
        try FileManager.default.copyItem(atPath: m4a.path, toPath: renamedM4A)
        #expect(try SoundFileReader(path: renamedM4A).readAll().frameCount == frames)
    }

    @Test func garbageAndMissingM4AAreClearErrors() throws {
        let dir = TemporaryDirectory("m4a-bad")
        let garbage = dir.write("memo.m4a", "this is not a voice memo\n")
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: garbage) }
        #expect(error?.kind == .badData)
        #expect(error?.description.contains("is not a sound file medrender can read") == true, "\(String(describing: error))")
        #expect(error?.cause?.isEmpty == false, "libav's own words are the cause")
        // An MP4 box header and then nothing.
        try writeBytes([0, 0, 0, 0x20] + Array("ftypM4A ".utf8) + [UInt8](repeating: 0, count: 20), to: dir.file("empty.m4a"))
        let empty = #expect(throws: IOError.self) { _ = try SoundFileReader(path: dir.file("empty.m4a")).readAll() }
        #expect(empty?.kind == .badData, "\(String(describing: empty))")
        let missing = #expect(throws: IOError.self) { _ = try SoundFileReader(path: dir.file("nowhere.m4a")) }
        #expect(missing?.kind == .missingInput)
    }

    @Test func anUnreadableM4AIsAClearError() throws {
        let dir = TemporaryDirectory("m4a-perm")
        let (path, _) = try Self.fixture(dir, name: "memo.m4a", rate: 16000, channels: 1, frames: 16000)
        chmod(path, 0o000)
        let error = try withFilePermissionsApplied(in: dir) { #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) } }
        #expect(error?.kind == .missingInput)
        #expect(error?.message.contains("cannot be read: check its permissions") == true, "\(String(describing: error))")
    }

    /// Cut short: with its index (`moov`) at the end, the file is not an M4A any more; with it at
    /// the start (`+faststart`), it reads no more than the container promised, or fails as bad data.
    @Test(arguments: [false, true])
    func aTruncatedM4AIsBadDataOrReadsLess(faststart: Bool) throws {
        let dir = TemporaryDirectory("m4a-cut")
        let frames = 48000
        let (path, _) = try Self.fixture(dir, name: "memo.m4a", rate: 48000, channels: 1, frames: frames,
                                          options: faststart ? ["-movflags", "+faststart"] : [])
        let bytes = try fileBytes(path)
        try writeBytes(Array(bytes[0..<(bytes.count / 2 | 1)]), to: path)
        do {
            let reader = try SoundFileReader(path: path)
            #expect(faststart, "without its index, the file opened")
            #expect(reader.frameCount <= Int64(frames))
            let asset = try reader.readAll()
            #expect(asset.frameCount < frames, "half the file gave \(asset.frameCount) frames")
            #expect(asset.samples.count == asset.frameCount && asset.samples.allSatisfy(\.isFinite))
        } catch {
            #expect(error.kind == .badData, "\(error)")
        }
    }
}
