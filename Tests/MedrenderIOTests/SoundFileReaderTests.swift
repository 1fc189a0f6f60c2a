import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

@Suite("SoundFileReader")
struct SoundFileReaderTests {
    @Test("a missing file is missing input")
    func missingFile() {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("nothing-here.wav")
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) }
        #expect(error?.kind == .missingInput)
        #expect(error?.path == path)
        #expect(error?.category == .missingInput)
    }

    @Test("a folder is missing input")
    func folder() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("sounds.wav")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) }
        #expect(error?.kind == .missingInput)
    }

    @Test("text and empty files are bad data", arguments: [
        "breathe in, breathe out\n", "", "RIFF", String(repeating: "x", count: 5000),
    ])
    func notSound(content: String) {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.write("notes.wav", content)
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) }
        #expect(error?.kind == .badData)
        #expect(error?.category == .badData)
        #expect(error?.path == path)
    }

    /// As root too: the check runs with an ordinary user's permissions (`withFilePermissionsApplied`).
    @Test("an unreadable file is missing input")
    func unreadable() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("locked.wav")
        try writeSoundFile(path, format: .int16, channels: 1, rate: 8000, samples: [0, 0.5])
        chmod(path, 0o000)
        defer { chmod(path, 0o644) }
        let error = try withFilePermissionsApplied(in: dir) { #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) } }
        #expect(error?.kind == .missingInput)
    }

    @Test("a sample rate outside 1000…768000 Hz is bad data", arguments: [UInt32(500), 999, 800_000])
    func badRate(rate: UInt32) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("odd-rate.wav")
        try writeBytes(handMadeWAV(rate: rate, channels: 1, frames: 10), to: path)
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) }
        #expect(error?.kind == .badData)
    }

    @Test("the rate and channel limits themselves are accepted", arguments: [(UInt32(1000), UInt16(1)), (768_000, 2), (8000, 64)])
    func limitsAccepted(rate: UInt32, channels: UInt16) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("edge.wav")
        try writeBytes(handMadeWAV(rate: rate, channels: channels, frames: 10), to: path)
        let reader = try SoundFileReader(path: path)
        #expect(reader.rate == Int(rate))
        #expect(reader.channels == Int(channels))
        #expect(reader.frameCount == 10)
        #expect(try reader.readAll().frameCount == 10)
    }

    @Test("more than 64 channels is bad data")
    func tooManyChannels() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("wide.wav")
        try writeBytes(handMadeWAV(rate: 48000, channels: 65, frames: 4), to: path)
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path) }
        #expect(error?.kind == .badData)
    }

    @Test("a truncated file reads no more than its header promised, or fails as bad data", arguments: [
        (SoundFileContainer.wav, SampleFormat.int16, 0.5), (.wav, .int24, 0.5), (.wav, .float32, 0.37),
        (.flac, .int16, 0.5), (.flac, .int24, 0.13),
    ])
    func truncated(container: SoundFileContainer, format: SampleFormat, keep: Double) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("cut.\(container.rawValue)")
        let frames = 48001
        try writeSoundFile(path, container: container, format: format, channels: 2, rate: 48000,
                           samples: sineWave(frames: frames, rate: 48000, frequencies: [440, 550]))
        let bytes = try fileBytes(path)
        // Cut at an odd byte count, so the last sample is cut too.
        try writeBytes(Array(bytes[0..<(Int(Double(bytes.count) * keep) | 1)]), to: path)
        try checkTruncatedRead(path: path, promised: frames)
    }

    @Test("a truncated Ogg Vorbis file reads no more than its header promised, or fails as bad data")
    func truncatedVorbis() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("cut.ogg")
        let frames = 44100
        try writeVorbisFile(path, channels: 2, rate: 44100,
                            samples: sineWave(frames: frames, rate: 44100, frequencies: [440, 550]))
        let bytes = try fileBytes(path)
        try writeBytes(Array(bytes[0..<(bytes.count / 2 | 1)]), to: path)
        try checkTruncatedRead(path: path, promised: frames)
    }

    /// Reads a damaged file: opening or reading may fail with bad data, but whatever comes back is
    /// whole frames and no more than `promised`.
    private func checkTruncatedRead(path: String, promised: Int) throws {
        do {
            let reader = try SoundFileReader(path: path)
            #expect(reader.frameCount <= Int64(promised))
            let asset = try reader.readAll()
            #expect(asset.frameCount <= promised)
            #expect(asset.samples.count == asset.frameCount * asset.channels)
            #expect(asset.samples.allSatisfy { $0.isFinite })
        } catch {
            #expect(error.kind == .badData, "\(error)")
        }
    }

    @Test("more than two channels fold to stereo: odd channels left, even channels right", arguments: [3, 4, 5, 6])
    func foldToStereo(channels: Int) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("surround.wav")
        // Channel k (0-based) holds the constant (k + 1) / 10, and a frame index ramp so frames stay apart.
        let frames = 5000
        var samples = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels { samples[f * channels + c] = Float(c + 1) / 10 + Float(f % 100) / 1000 }
        }
        try writeSoundFile(path, format: .float32, channels: channels, rate: 48000, samples: samples)
        let reader = try SoundFileReader(path: path)
        #expect(reader.channels == channels)
        let asset = try reader.readAll()
        #expect(asset.channels == 2)
        try #require(asset.frameCount == frames)
        let left = stride(from: 0, to: channels, by: 2).map { Float($0 + 1) / 10 }
        let right = stride(from: 1, to: channels, by: 2).map { Float($0 + 1) / 10 }
        let leftMean = left.reduce(0, +) / Float(left.count), rightMean = right.reduce(0, +) / Float(right.count)
        var worst: Float = 0
        for f in 0..<frames {
            let ramp = Float(f % 100) / 1000
            worst = max(worst, abs(asset.samples[2 * f] - (leftMean + ramp)), abs(asset.samples[2 * f + 1] - (rightMean + ramp)))
        }
        // Tolerance: Float32 rounding of a sum of at most 3 values below 1.
        #expect(worst < 1e-6, "worst error \(worst)")
    }

    @Test("a 4-channel file made by sox folds to stereo", .enabled(if: which("sox") != nil, "needs sox"))
    func foldSoxFile() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("quad.wav")
        // Channels 1 and 3 carry the same 300 Hz sine, channels 2 and 4 are silent.
        let result = try runProcess(which("sox")!, [
            "-D", "-n", "-r", "16000", "-c", "4", "-b", "16", path, "synth", "0.5",
            "sine", "300", "sine", "300", "sine", "300", "sine", "300", "vol", "0.5",
            "remix", "1", "0", "3", "0",
        ])
        try #require(result.status == 0, "sox failed: \(result.stderr)")
        let reader = try SoundFileReader(path: path)
        try #require(reader.channels == 4)
        let asset = try reader.readAll()
        #expect(asset.channels == 2)
        #expect(asset.frameCount == 8000)
        let left = channel(asset.samples, 0, of: 2), right = channel(asset.samples, 1, of: 2)
        // Tolerance: the mean of two identical 16-bit sines keeps the amplitude within 1 %.
        #expect(abs(left.map(abs).max()! - 0.5) < 0.005)
        #expect(right.allSatisfy { $0 == 0 })
    }

    @Test("a file made by sox reads with its rate, channels and length", .enabled(if: which("sox") != nil, "needs sox"),
          arguments: ["aiff", "flac", "wav"])
    func soxFile(ext: String) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("tone.\(ext)")
        let result = try runProcess(which("sox")!, [
            "-n", "-r", "32000", "-c", "1", "-b", "24", path, "synth", "0.25", "sine", "440", "vol", "0.25",
        ])
        try #require(result.status == 0, "sox failed: \(result.stderr)")
        let reader = try SoundFileReader(path: path)
        #expect(reader.rate == 32000)
        #expect(reader.channels == 1)
        #expect(reader.frameCount == 8000)
        let asset = try reader.readAll()
        #expect(asset.frameCount == 8000)
        // Tolerance: a 440 Hz sine sampled at 32 kHz reaches within 0.1 % of its amplitude.
        #expect(abs(asset.peak - 0.25) < 0.00025)
    }

    @Test("mono and stereo files read as they are")
    func monoAndStereo() throws {
        let dir = TemporaryDirectory("io-reader")
        for channels in [1, 2] {
            let path = dir.file("\(channels).wav")
            let samples = noiseSamples(count: 999 * channels, seed: 7)
            try writeSoundFile(path, format: .float32, channels: channels, rate: 22050, samples: samples)
            let asset = try SoundFileReader(path: path).readAll()
            #expect(asset.channels == channels)
            #expect(asset.samples == samples)
        }
    }

    @Test("read(into:) delivers frames in pieces, then 0 at the end")
    func readInPieces() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("pieces.wav")
        let samples = noiseSamples(count: 1001 * 2, seed: 3)
        try writeSoundFile(path, format: .float32, channels: 2, rate: 48000, samples: samples)
        let reader = try SoundFileReader(path: path)
        var buffer = [Float](repeating: 0, count: 300 * 2)
        var all: [Float] = []
        var counts: [Int] = []
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frameCount: 300) }
            counts.append(n)
            if n == 0 { break }
            all += buffer[0..<(n * 2)]
        }
        #expect(counts == [300, 300, 300, 101, 0])
        #expect(all == samples)
        // Reading past the end keeps answering 0.
        #expect(try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frameCount: 300) } == 0)
    }

    @Test("a file longer than maximumFrames is refused")
    func maximumFrames() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("long.wav")
        try writeSoundFile(path, format: .int16, channels: 2, rate: 8000, samples: [Float](repeating: 0.1, count: 2 * 101))
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path).readAll(maximumFrames: 100) }
        #expect(error?.kind == .badData)
        // Exactly at the limit is fine.
        #expect(try SoundFileReader(path: path).readAll(maximumFrames: 101).frameCount == 101)
    }

    @Test("samples that are not numbers are bad data", arguments: [Float.nan, .infinity, -.infinity])
    func notANumber(value: Float) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("nan.wav")
        var samples = [Float](repeating: 0.25, count: 5000)
        samples[4321] = value
        try writeSoundFile(path, format: .float32, channels: 1, rate: 48000, samples: samples)
        let error = #expect(throws: IOError.self) { _ = try SoundFileReader(path: path).readAll() }
        #expect(error?.kind == .badData)
    }

    /// An Opus file encoded from 8 kHz reads at that rate, or at 48 kHz, as a player decodes it,
    /// when asked: six times the frames, the same tone (its peak within the codec's 1 dB).
    @Test(.enabled(if: which("ffmpeg") != nil, "needs ffmpeg"))
    func anOpusFileDecodesAtTheRateAsked() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("tone.opus")
        let result = try runProcess(which("ffmpeg")!, [
            "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=1", path,
        ])
        try #require(result.status == 0, "ffmpeg failed: \(result.stderr)")
        let own = try SoundFileReader(path: path), asked = try SoundFileReader(path: path, opusRate: 48000)
        #expect(own.rate == 8000 && asked.rate == 48000)
        #expect(asked.frameCount == 6 * own.frameCount, "\(asked.frameCount) frames at 48 kHz, \(own.frameCount) at 8 kHz")
        let a = try own.readAll(), b = try asked.readAll()
        #expect(b.frameCount == 6 * a.frameCount, "\(b.frameCount) frames read at 48 kHz, \(a.frameCount) at 8 kHz")
        #expect(abs(decibels(Double(b.peak) / Double(a.peak))) < 1, "peaks \(a.peak) and \(b.peak)")
        // A file that is not Opus keeps its own rate.
        let wav = dir.file("tone.wav")
        try writeSoundFile(wav, format: .int16, channels: 1, rate: 8000, samples: [Float](repeating: 0.25, count: 800))
        #expect(try SoundFileReader(path: wav, opusRate: 48000).rate == 8000)
    }

    @Test("MP3 and Opus made by ffmpeg read with their rate and channels",
          .enabled(if: which("ffmpeg") != nil, "needs ffmpeg"), arguments: [("mp3", 44100), ("opus", 48000)])
    func ffmpegFile(ext: String, rate: Int) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("tone.\(ext)")
        let result = try runProcess(which("ffmpeg")!, [
            "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=1",
            "-ac", "2", path,
        ])
        try #require(result.status == 0, "ffmpeg failed: \(result.stderr)")
        let reader = try SoundFileReader(path: path)
        #expect(reader.rate == rate)
        #expect(reader.channels == 2)
        let asset = try reader.readAll()
        // Tolerance: lossy codecs add encoder delay and padding, well under 0.1 s.
        #expect(abs(asset.frameCount - rate) < rate / 10, "\(asset.frameCount) frames")
        // ffmpeg's sine source has amplitude 1/8, and its mono-to-stereo upmix takes 3 dB off.
        // Tolerance: 1 dB for the lossy codec.
        let level = decibels(Double(asset.peak) / (0.125 / 2.0.squareRoot()))
        #expect(abs(level) < 1, "peak \(asset.peak)")
    }

    /// A bed at another rate is resampled and rounded to 16 bits a block at a time: exactly the
    /// resampled length, and each sample the float resampling's rounded (within a step: the
    /// resampler fed in other blocks), mono and stereo, up and down.
    @Test("a sound read into 16 bits at another rate is the float resampling, rounded", arguments: [
        (44100, 48000, 1), (48000, 44100, 2), (48000, 8000, 2), (22050, 96000, 1), (48000, 48000, 2),
    ])
    func heldResampled(from: Int, to: Int, channels: Int) throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("bed.wav")
        let frames = from + from / 3
        var samples = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels { samples[f * channels + c] = 0.5 * Float(sin(Double(f) * (0.01 + 0.02 * Double(c)))) }
        }
        try writeSoundFile(path, format: .float32, channels: channels, rate: from, samples: samples)
        let held = try SoundFileReader(path: path).readAllHeld(resampledTo: to)
        let floats = try Resampler.resample(try SoundFileReader(path: path).readAll(), from: from, to: to)
        #expect(held.channels == channels)
        #expect(held.scale == Int16.heldStep)
        #expect(held.frameCount == Resampler.targetLength(frameCount: frames, from: from, to: to))
        try #require(held.samples.count == floats.samples.count)
        var worst: Float = 0
        for (a, b) in zip(floats.samples, held.samples) { worst = max(worst, abs(a - b.heldValue)) }
        #expect(worst <= Int16.heldStep, "\(worst / Int16.heldStep) steps from the float resampling")
    }

    /// A sound that would pass the most samples once resampled is refused as it is read.
    @Test("a sound too long once resampled into 16 bits is bad data")
    func heldResampledTooLong() throws {
        let dir = TemporaryDirectory("io-reader")
        let path = dir.file("bed.wav")
        try writeSoundFile(path, format: .float32, channels: 1, rate: 8000, samples: [Float](repeating: 0.1, count: 8000))
        #expect(throws: IOError.self) { try SoundFileReader(path: path).readAllHeld(resampledTo: 48000, maximumSamples: 40000) }
        #expect(try SoundFileReader(path: path).readAllHeld(resampledTo: 48000, maximumSamples: 48000).frameCount == 48000)
    }
}
