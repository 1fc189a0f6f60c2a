import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// Collects what an encoder writes in memory.
final class MemorySink: ByteSink {
    var bytes: [UInt8] = []
    func write(_ buffer: UnsafeRawBufferPointer) throws(IOError) { bytes += buffer }
}

/// Accepts `budget` bytes, then fails every write like a full disk.
final class FailingSink: ByteSink {
    var budget: Int
    var failures = 0
    init(budget: Int) { self.budget = budget }
    func write(_ buffer: UnsafeRawBufferPointer) throws(IOError) {
        if buffer.count > budget {
            failures += 1
            throw IOError(.io, "the disk is full", path: "sink", cause: "test")
        }
        budget -= buffer.count
    }
}

@Suite("VorbisEncoder")
struct VorbisEncoderTests {
    @Test("2 s of stereo sine decodes to the same length, rate, channels and a close signal",
          arguments: [22050, 44100, 48000])
    func roundTrip(rate: Int) throws {
        let dir = TemporaryDirectory("io-vorbis")
        let path = dir.file("sine.ogg")
        let frames = 2 * rate
        // Different tones left and right, so a channel swap shows.
        let input = sineWave(frames: frames, rate: rate, frequencies: [440, 1000], amplitude: 0.5)
        try writeVorbisFile(path, channels: 2, rate: rate, samples: input)

        let reader = try SoundFileReader(path: path)
        #expect(reader.rate == rate)
        #expect(reader.channels == 2)
        #expect(reader.format == LibsndfileFormat.ogg)
        #expect(reader.frameCount == Int64(frames))
        let output = try reader.readAll()
        #expect(output.channels == 2)
        try #require(output.frameCount == frames)

        for c in 0..<2 {
            let a = channel(input, c, of: 2), b = channel(output.samples, c, of: 2)
            // Tolerance: Vorbis at quality 4 keeps a pure tone's shape (correlation > 0.99; measured
            // above 0.9993) and its level (RMS error below 10 % of the signal's RMS, i.e. −20 dB;
            // measured at most 3.7 %). A channel swap or a broken decode gives about 140 %.
            let r = correlation(a, b)
            #expect(r > 0.99, "channel \(c): correlation \(r)")
            let error = rms(zip(a, b).map { $0 - $1 })
            #expect(error < 0.1 * rms(a), "channel \(c): RMS error \(error)")
            // The other channel's tone is unrelated.
            let other = channel(input, 1 - c, of: 2)
            #expect(abs(correlation(other, b)) < 0.1, "channel \(c) looks like channel \(1 - c)")
        }
    }

    @Test("awkward lengths decode to exactly that many frames", arguments: [1, 1000, 1025, 4097, 44101])
    func exactLength(frames: Int) throws {
        let dir = TemporaryDirectory("io-vorbis")
        let path = dir.file("short.ogg")
        try writeVorbisFile(path, channels: 1, rate: 44100,
                            samples: sineWave(frames: frames, rate: 44100, frequencies: [523.25]))
        let pages = try #require(oggPages(try fileBytes(path)))
        #expect(pages.last?.isLast == true)
        #expect(pages.last?.granulePosition == Int64(frames))
        let reader = try SoundFileReader(path: path)
        #expect(reader.frameCount == Int64(frames))
        #expect(try reader.readAll().frameCount == frames)
    }

    @Test("the Ogg pages carry medrender's serial, in sequence, ending with the last granule")
    func pages() throws {
        let dir = TemporaryDirectory("io-vorbis")
        let path = dir.file("pages.ogg")
        let frames = 3 * 48000 + 17
        try writeVorbisFile(path, channels: 2, rate: 48000,
                            samples: sineWave(frames: frames, rate: 48000, frequencies: [440, 660]))
        let bytes = try fileBytes(path)
        #expect(Array(bytes[0..<4]) == Array("OggS".utf8))
        #expect(littleEndian32(bytes, at: 14) == UInt32(bitPattern: VorbisEncoder.serial))
        #expect(VorbisEncoder.serial == 0x6D65_6472)
        let pages = try #require(oggPages(bytes))
        #expect(pages.count > 3)
        #expect(pages.allSatisfy { $0.serial == UInt32(bitPattern: VorbisEncoder.serial) })
        #expect(pages.map(\.sequence) == (0..<UInt32(pages.count)).map { $0 })
        #expect(pages[0].headerType & 0x02 != 0, "first page lacks the beginning-of-stream flag")
        #expect(pages.dropLast().allSatisfy { !$0.isLast })
        #expect(pages.last?.isLast == true)
        #expect(pages.last?.granulePosition == Int64(frames))
        // Granule positions never go back.
        let granules = pages.map(\.granulePosition).filter { $0 >= 0 }
        #expect(granules == granules.sorted())
    }

    @Test("the same input gives the same bytes")
    func reproducible() throws {
        let dir = TemporaryDirectory("io-vorbis")
        var noise = SplitMix64(seed: 5)
        let input = sineWave(frames: 44100 + 123, rate: 44100, frequencies: [440, 587.33], amplitude: 0.3)
            .map { $0 + 0.05 * noise.nextSample() }
        let tags = [("TITLE", "Box breath"), ("ARTIST", "medrender")]
        try writeVorbisFile(dir.file("a.ogg"), channels: 2, rate: 44100, samples: input, tags: tags)
        try writeVorbisFile(dir.file("b.ogg"), channels: 2, rate: 44100, samples: input, tags: tags)
        let a = try fileBytes(dir.file("a.ogg"))
        #expect(a.count > 1000)
        #expect(a == (try fileBytes(dir.file("b.ogg"))))
        // An encoder writing to memory gives the same bytes as one writing to a file.
        let sink = MemorySink()
        try encodeVorbis(into: sink, channels: 2, rate: 44100, samples: input, tags: tags)
        #expect(sink.bytes == a)
    }

    @Test("how the audio is cut into writes changes nothing: the same bytes",
          arguments: [[1], [1000], [4097], [1, 2047, 333]])
    func chunking(pieces: [Int]) throws {
        // The encoder hands libvorbis fixed blocks, so its block decisions, and the bytes, do not
        // depend on how the caller splits the audio.
        let dir = TemporaryDirectory("io-vorbis")
        let frames = 20011
        let input = sineWave(frames: frames, rate: 48000, frequencies: [300, 450], amplitude: 0.4)
        try writeVorbisFile(dir.file("whole.ogg"), channels: 2, rate: 48000, samples: input)
        try writeVorbisFile(dir.file("cut.ogg"), channels: 2, rate: 48000, samples: input, pieces: pieces)
        let whole = try SoundFileReader(path: dir.file("whole.ogg")).readAll()
        let cut = try SoundFileReader(path: dir.file("cut.ogg")).readAll()
        #expect(whole.frameCount == frames)
        try #require(cut.frameCount == frames)
        // Tolerance: two encodings of the same tone correlate above 0.999.
        let r = correlation(whole.samples, cut.samples)
        #expect(r > 0.999, "correlation \(r)")
        #expect(try fileBytes(dir.file("whole.ogg")) == (try fileBytes(dir.file("cut.ogg"))))
    }

    @Test("tags go into the comment header")
    func tags() throws {
        let dir = TemporaryDirectory("io-vorbis")
        let path = dir.file("tagged.ogg")
        try writeVorbisFile(path, channels: 1, rate: 48000, samples: sineWave(frames: 4800, rate: 48000, frequencies: [440]),
                            tags: [("TITLE", "Evening calm"), ("ARTIST", "medrender test")])
        let bytes = try fileBytes(path)
        #expect(contains(bytes, "TITLE=Evening calm"))
        #expect(contains(bytes, "ARTIST=medrender test"))
    }

    @Test("ffprobe reports the exact duration in samples", .enabled(if: which("ffprobe") != nil, "needs ffprobe"),
          arguments: [(22050, 2 * 22050), (44100, 44100 + 1), (48000, 96_000)])
    func ffprobeDuration(rate: Int, frames: Int) throws {
        let dir = TemporaryDirectory("io-vorbis")
        let path = dir.file("probe.ogg")
        try writeVorbisFile(path, channels: 2, rate: rate,
                            samples: sineWave(frames: frames, rate: rate, frequencies: [440, 550]))
        let result = try runProcess(which("ffprobe")!, [
            "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration_ts,sample_rate,channels,codec_name",
            "-of", "default=noprint_wrappers=1", path,
        ])
        try #require(result.status == 0, "ffprobe failed: \(result.stderr)")
        let fields = Dictionary(result.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { a, _ in a })
        #expect(fields["codec_name"] == "vorbis")
        #expect(fields["sample_rate"] == String(rate))
        #expect(fields["channels"] == "2")
        #expect(fields["duration_ts"] == String(frames), "ffprobe said: \(result.stdout)")
    }

    @Test("an empty stream is still a valid file")
    func empty() throws {
        let dir = TemporaryDirectory("io-vorbis")
        let path = dir.file("empty.ogg")
        try writeVorbisFile(path, channels: 2, rate: 48000, samples: [])
        let pages = try #require(oggPages(try fileBytes(path)))
        #expect(pages.last?.isLast == true)
        #expect(pages.allSatisfy { $0.serial == UInt32(bitPattern: VorbisEncoder.serial) })
    }

    /// Where a sink fails: at its first byte, in the middle, or at its very last byte.
    enum FailurePoint: String, CaseIterable, Sendable { case headers, middle, lastPage }

    @Test("a failing sink's error comes out of init, write or finish", arguments: FailurePoint.allCases)
    func failingSink(point: FailurePoint) throws {
        let frames = 3 * 48000
        let input = sineWave(frames: frames, rate: 48000, frequencies: [440, 660])
        let complete = MemorySink()
        try encodeVorbis(into: complete, channels: 2, rate: 48000, samples: input)
        let total = complete.bytes.count
        try #require(total > 10000)

        let sink = FailingSink(budget: [FailurePoint.headers: 0, .middle: total / 2, .lastPage: total - 1][point]!)
        var stage = "init"
        let error = #expect(throws: IOError.self) {
            let encoder = try VorbisEncoder(sink: sink, channels: 2, rate: 48000, quality: 4)
            stage = "write"
            try input.withUnsafeBufferPointer { try encoder.write($0.baseAddress!, frameCount: frames) }
            stage = "finish"
            try encoder.finish()
        }
        #expect(error?.kind == .io)
        #expect(error?.message == "the disk is full")
        #expect(sink.failures == 1, "writing went on after the first failure")
        #expect(stage == [FailurePoint.headers: "init", .middle: "write", .lastPage: "finish"][point]!)
    }

    @Test("a rate or channel count libvorbis refuses is a library error", arguments: [(0, 48000), (2, 0), (2, -8000)])
    func refused(channels: Int, rate: Int) {
        let sink = MemorySink()
        let error = #expect(throws: IOError.self) {
            _ = try VorbisEncoder(sink: sink, channels: channels, rate: rate, quality: 4)
        }
        #expect(error?.kind == .library)
        #expect(sink.bytes.isEmpty)
    }

    @Test("higher quality gives a bigger file, over the whole range -1…10", arguments: [(-1.0, 0.0), (0, 4), (4, 10)])
    func quality(low: Double, high: Double) throws {
        let input = noiseSamples(count: 2 * 24000, seed: 11).map { $0 * 0.3 }
        let small = MemorySink(), big = MemorySink()
        try encodeVorbis(into: small, channels: 2, rate: 48000, samples: input, quality: low)
        try encodeVorbis(into: big, channels: 2, rate: 48000, samples: input, quality: high)
        #expect(small.bytes.count > 0)
        #expect(small.bytes.count < big.bytes.count)
        #expect(oggPages(small.bytes)?.last?.granulePosition == 24000)
        #expect(oggPages(big.bytes)?.last?.granulePosition == 24000)
    }

    @Test("finish twice is harmless")
    func finishTwice() throws {
        let sink = MemorySink()
        let encoder = try VorbisEncoder(sink: sink, channels: 1, rate: 44100, quality: 4)
        let input = sineWave(frames: 4410, rate: 44100, frequencies: [440])
        try input.withUnsafeBufferPointer { try encoder.write($0.baseAddress!, frameCount: 4410) }
        try encoder.finish()
        let size = sink.bytes.count
        try encoder.finish()
        #expect(sink.bytes.count == size)
        #expect(oggPages(sink.bytes)?.last?.granulePosition == 4410)
    }
}
