import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// One WAV/FLAC round trip: what is written, and how.
struct RoundTripCase: CustomTestStringConvertible, Sendable {
    var container: SoundFileContainer
    var format: SampleFormat
    var channels: Int
    var frames: Int
    var rate: Int { channels == 1 ? 44100 : 48000 }
    var testDescription: String { "\(container.rawValue) \(format.rawValue) \(channels) ch \(frames) frames" }

    /// The largest error allowed after the round trip: 1 LSB of the integer format, 0 for float.
    var tolerance: Double {
        switch format {
        case .int16: 1.0 / 32768
        case .int24: 1.0 / 8_388_608
        case .float32: 0
        }
    }

    static let all: [RoundTripCase] = {
        let kinds: [(SoundFileContainer, SampleFormat)] =
            [(.wav, .int16), (.wav, .int24), (.wav, .float32), (.flac, .int16), (.flac, .int24)]
        var cases: [RoundTripCase] = []
        for (container, format) in kinds {
            for channels in [1, 2] {
                // FLAC with no frames is `emptyFLAC` below (a known issue).
                for frames in [0, 1, 4097, 48001] where !(container == .flac && frames == 0) {
                    cases.append(RoundTripCase(container: container, format: format, channels: channels, frames: frames))
                }
            }
        }
        return cases
    }()
}

@Suite("SoundFileWriter")
struct SoundFileWriterTests {
    @Test("round trip keeps frame count, rate, channels and samples", arguments: RoundTripCase.all)
    func roundTrip(_ c: RoundTripCase) throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("out.\(c.container.rawValue)")
        let written = noiseSamples(count: c.frames * c.channels, seed: UInt64(c.frames + c.channels))
        try writeSoundFile(path, container: c.container, format: c.format, channels: c.channels, rate: c.rate,
                           samples: written)

        let reader = try SoundFileReader(path: path)
        #expect(reader.rate == c.rate)
        #expect(reader.channels == c.channels)
        #expect(reader.frameCount == Int64(c.frames))
        #expect(reader.format == (c.container == .wav ? LibsndfileFormat.wav : LibsndfileFormat.flac))
        let asset = try reader.readAll()
        #expect(asset.channels == c.channels)
        #expect(asset.frameCount == c.frames)
        try #require(asset.samples.count == written.count)

        if c.format == .float32 {
            // Tolerance: none — Float32 WAV stores the bits as given.
            let differing = zip(asset.samples, written).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(differing) samples changed bits")
        } else {
            // Tolerance: 1 LSB of the integer format (quantization is ½ LSB; full scale +1.0 clips to
            // the largest code, exactly 1 LSB below).
            let worst = zip(asset.samples, written).map { abs(Double($0) - Double($1)) }.max() ?? 0
            #expect(worst <= c.tolerance, "worst error \(worst), allowed \(c.tolerance)")
        }
    }

    @Test("float WAV has no PEAK chunk and the same data gives the same bytes")
    func floatWAVIsReproducible() throws {
        let dir = TemporaryDirectory("io-writer")
        let samples = sineWave(frames: 4801, rate: 48000, frequencies: [440, 660])
        let before = time(nil)
        try writeSoundFile(dir.file("a.wav"), format: .float32, channels: 2, rate: 48000, samples: samples)
        try writeSoundFile(dir.file("b.wav"), format: .float32, channels: 2, rate: 48000, samples: samples)
        let after = time(nil)
        let a = try fileBytes(dir.file("a.wav")), b = try fileBytes(dir.file("b.wav"))

        let chunks = try #require(riffChunkIDs(a))
        #expect(chunks.contains("fmt ") && chunks.contains("data"), "chunks: \(chunks)")
        #expect(!chunks.contains("PEAK"), "chunks: \(chunks)")
        let dataStart = a.count - 4801 * 2 * 4
        let header = Array(a[0..<dataStart])
        #expect(!contains(header, "PEAK"))
        // The PEAK chunk's time stamp is the clock's seconds (`time`, not the file's times): no
        // 32-bit field of the header holds the seconds the writes took place in, at any offset.
        // (Two files written within the same second would be the same bytes even with a stamp.)
        let stamped = (0...(header.count - 4)).filter { at in
            let value = (0..<4).reduce(0) { $0 | Int(header[at + $1]) << (8 * $1) }
            return value >= before && value <= after
        }
        #expect(stamped.isEmpty, "the header holds the time at bytes \(stamped)")
        #expect(a == b)
    }

    @Test("the same data gives the same bytes", arguments: [
        (SoundFileContainer.wav, SampleFormat.int16), (.wav, .int24), (.flac, .int16), (.flac, .int24),
    ])
    func reproducible(container: SoundFileContainer, format: SampleFormat) throws {
        let dir = TemporaryDirectory("io-writer")
        let samples = sineWave(frames: 10007, rate: 44100, frequencies: [220, 330])
        let tags = [(SoundFileTag.title, "Box breath"), (SoundFileTag.software, "medrender")]
        let a = dir.file("a.\(container.rawValue)"), b = dir.file("b.\(container.rawValue)")
        try writeSoundFile(a, container: container, format: format, channels: 2, rate: 44100, samples: samples, tags: tags)
        try writeSoundFile(b, container: container, format: format, channels: 2, rate: 44100, samples: samples, tags: tags)
        let bytesA = try fileBytes(a)
        #expect(bytesA.count > 1000)
        #expect(bytesA == (try fileBytes(b)))
    }

    @Test("a file with no frames is still a valid file", arguments: [SampleFormat.int16, .int24, .float32])
    func emptyWAV(format: SampleFormat) throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("empty.wav")
        try writeSoundFile(path, format: format, channels: 2, rate: 48000, samples: [])
        #expect(riffChunkIDs(try fileBytes(path))?.contains("data") == true)
        let reader = try SoundFileReader(path: path)
        #expect(reader.frameCount == 0)
        #expect(reader.channels == 2)
        #expect(try reader.readAll().frameCount == 0)
    }

    @Test("a FLAC file with no frames is still a valid FLAC file", arguments: [SampleFormat.int16, .int24])
    func emptyFLAC(format: SampleFormat) throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("empty.flac")
        try writeSoundFile(path, container: .flac, format: format, channels: 2, rate: 48000, samples: [],
                           tags: [(SoundFileTag.title, "Nothing yet")])
        let bytes = try fileBytes(path)
        #expect(Array(bytes.prefix(4)) == Array("fLaC".utf8), "\(bytes.count) bytes")
        #expect(contains(bytes, "TITLE=Nothing yet"))
        let reader = try SoundFileReader(path: path)
        #expect(reader.frameCount == 0)
        #expect(reader.channels == 2)
        #expect(reader.rate == 48000)
        #expect(try reader.readAll().frameCount == 0)
        // An independent reader takes it too: ffprobe finds one FLAC stream of 2 channels at 48 kHz.
        do {
            let ffprobe = try #require(which("ffprobe"), "make test installs ffmpeg")
            let probe = try runProcess(ffprobe, ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,bits_per_raw_sample",
                                                 "-of", "default=nw=1", path])
            #expect(probe.status == 0, "\(probe.stderr)")
            #expect(probe.stdout.contains("codec_name=flac") && probe.stdout.contains("sample_rate=48000") && probe.stdout.contains("channels=2"))
            #expect(probe.stdout.contains("bits_per_raw_sample=\(format == .int24 ? 24 : 16)"))
        }
    }

    @Test("tags are written", arguments: [SoundFileContainer.wav, .flac])
    func tags(container: SoundFileContainer) throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("tagged.\(container.rawValue)")
        let samples = sineWave(frames: 1000, rate: 48000, frequencies: [440])
        try writeSoundFile(path, container: container, format: .int16, channels: 1, rate: 48000, samples: samples,
                           tags: [(SoundFileTag.title, "Evening calm"), (SoundFileTag.artist, "medrender test")])
        let bytes = try fileBytes(path)
        #expect(contains(bytes, "Evening calm"))
        #expect(contains(bytes, "medrender test"))
        // The tags do not disturb the audio.
        #expect(try SoundFileReader(path: path).readAll().frameCount == 1000)
    }

    @Test("integer formats clip out-of-range samples instead of wrapping", arguments: [SampleFormat.int16, .int24])
    func clipping(format: SampleFormat) throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("loud.wav")
        let written: [Float] = [1.5, -1.5, 4, -4, 1.0001, -1.0001]
        try writeSoundFile(path, format: format, channels: 1, rate: 48000, samples: written)
        let back = try SoundFileReader(path: path).readAll().samples
        try #require(back.count == written.count)
        // Tolerance: clipped to full scale, within 1 LSB (16-bit) of ±1; a wrapped value would have the other sign.
        for (w, r) in zip(written, back) {
            if w > 0 { #expect(r >= 1 - 1.0 / 32768 && r <= 1, "\(w) came back as \(r)") }
            else { #expect(r <= -1 + 1.0 / 32768 && r >= -1, "\(w) came back as \(r)") }
        }
    }

    @Test("Int16 frames go to a 16-bit file exactly")
    func int16Frames() throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("int16.wav")
        let values: [Int16] = [0, 1, -1, Int16.max, Int16.min, 12345, -12345, 77]
        let file = try AtomicOutputFile(path: path)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .int16, channels: 2, rate: 8000)
        try values.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: values.count / 2) }
        try writer.finish()
        try file.commit()
        let back = try SoundFileReader(path: path).readAll()
        #expect(back.frameCount == values.count / 2)
        // Tolerance: none — libsndfile reads 16-bit code k as k / 32768, exact in Float.
        #expect(back.samples == values.map { Float($0) / 32768 })
    }

    @Test("Int32 frames go to a 24-bit file as their top 24 bits")
    func int32Frames() throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("int24.wav")
        let codes: [Int32] = [0, 1, -1, 8_388_607, -8_388_608, 1_234_567, -7_654_321]
        let values = codes.map { $0 << 8 }
        let file = try AtomicOutputFile(path: path)
        let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .int24, channels: 1, rate: 8000)
        try values.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: values.count) }
        try writer.finish()
        try file.commit()
        let back = try SoundFileReader(path: path).readAll()
        // Tolerance: none — 24-bit code k reads as k / 2^23, exact in Float.
        #expect(back.samples == codes.map { Float($0) / 8_388_608 })
    }

    @Test("FLAC cannot hold float samples")
    func flacFloatRefused() throws {
        let dir = TemporaryDirectory("io-writer")
        let file = try AtomicOutputFile(path: dir.file("x.flac"))
        let error = #expect(throws: IOError.self) {
            _ = try SoundFileWriter(file: file, container: .flac, sampleFormat: .float32, channels: 2, rate: 48000)
        }
        #expect(error?.kind == .cannotCreate)
        #expect(error?.path == dir.file("x.flac"))
    }

    @Test("impossible channel counts and rates are refused", arguments: [(0, 48000), (2, 0), (2, -44100)])
    func impossibleShape(channels: Int, rate: Int) throws {
        let dir = TemporaryDirectory("io-writer")
        let file = try AtomicOutputFile(path: dir.file("x.wav"))
        let error = #expect(throws: IOError.self) {
            _ = try SoundFileWriter(file: file, container: .wav, sampleFormat: .int16, channels: channels, rate: rate)
        }
        #expect(error?.kind == .cannotCreate)
    }

    @Test("the writer keeps its output file alive")
    func writerKeepsFile() throws {
        let dir = TemporaryDirectory("io-writer")
        var file: AtomicOutputFile? = try AtomicOutputFile(path: dir.file("kept.wav"))
        weak let weakFile = file
        let writer = try SoundFileWriter(file: file!, container: .wav, sampleFormat: .int16, channels: 1, rate: 8000)
        file = nil
        #expect(weakFile != nil, "the output file was released while its writer still uses its descriptor")
        let samples = sineWave(frames: 100, rate: 8000, frequencies: [440])
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 100) }
        try writer.finish()
    }

    @Test("finish twice is harmless, and an unfinished writer still closes")
    func finishTwice() throws {
        let dir = TemporaryDirectory("io-writer")
        let path = dir.file("twice.wav")
        let samples = sineWave(frames: 100, rate: 8000, frequencies: [440])
        let file = try AtomicOutputFile(path: path)
        do {
            let writer = try SoundFileWriter(file: file, container: .wav, sampleFormat: .int16, channels: 1, rate: 8000)
            try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 100) }
            try writer.finish()
            try writer.finish()
        }
        try file.commit()
        #expect(try SoundFileReader(path: path).frameCount == 100)

        // Released without finish: deinit closes it, and the header is still written.
        let path2 = dir.file("unfinished.wav")
        let file2 = try AtomicOutputFile(path: path2)
        do {
            let writer = try SoundFileWriter(file: file2, container: .wav, sampleFormat: .int16, channels: 1, rate: 8000)
            try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 100) }
        }
        try file2.commit()
        #expect(try SoundFileReader(path: path2).frameCount == 100)
    }
}
