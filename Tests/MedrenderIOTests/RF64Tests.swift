import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// WAV past 4 GiB is written as RF64 (EBU Tech 3306) instead of being refused; below it, RIFF as
/// before. Checked without writing 4 GiB: the choice at the boundary, a stream's header for a
/// 19-hour session, and small files forced to RF64 read back by libsndfile, ffmpeg and `inspect`.
@Suite struct RF64Tests {
    /// Bytes a stream receives, kept in memory.
    final class CollectingSink: ByteSink {
        var bytes: [UInt8] = []
        func write(_ raw: UnsafeRawBufferPointer) throws(IOError) { bytes += raw }
    }

    static func le(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64 {
        (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    @Test func theChoiceIsMadeAtRIFFsLargestSize() {
        let limit = Int64(UInt32.max) - WaveSize.headerRoomBytes
        #expect(!WaveSize.needsRF64(dataBytes: 0))
        #expect(!WaveSize.needsRF64(dataBytes: limit - 1))
        #expect(WaveSize.needsRF64(dataBytes: limit))
        // 15 minutes of 16-bit stereo at 48 kHz stays RIFF; 1140 minutes of 32-bit float stereo at 8 kHz does not.
        #expect(!WaveSize.needsRF64(dataBytes: WaveSize.dataBytes(frameCount: 15 * 60 * 48000, channels: 2, bytesPerSample: 2)))
        #expect(WaveSize.needsRF64(dataBytes: WaveSize.dataBytes(frameCount: 1140 * 60 * 8000, channels: 2, bytesPerSample: 4)))
    }

    @Test func aStreamPast4GiBGetsAnRF64HeaderWithItsSizesInDs64() throws {
        let frames: Int64 = 1140 * 60 * 8000
        let sink = CollectingSink()
        _ = try StreamingWaveWriter(sink: sink, channels: 2, rate: 8000, bits: 32, frameCount: frames,
                                    info: [("INAM", "Long")], markers: [WaveMarker(frame: 8000, name: "Settle")])
        let head = sink.bytes
        let data = UInt64(frames) * 8
        #expect(Array(head[0..<4]) == Array("RF64".utf8))
        #expect(Self.le(head, 4, 4) == UInt64(UInt32.max))
        #expect(Array(head[8..<16]) == Array("WAVEds64".utf8))
        #expect(Self.le(head, 16, 4) == 28)
        #expect(Self.le(head, 20, 8) == UInt64(head.count) - 8 + data, "the RIFF size: the header and the data, less 8")
        #expect(Self.le(head, 28, 8) == data)
        #expect(Self.le(head, 36, 8) == UInt64(frames))
        #expect(Array(head[(head.count - 8)..<(head.count - 4)]) == Array("data".utf8))
        #expect(Self.le(head, head.count - 4, 4) == UInt64(UInt32.max))
        // The server's Content-Length: the whole file, from the first 64 bytes.
        #expect(WaveSize.announcedLength(head: Array(head.prefix(64))) == Int64(head.count) + Int64(data))
        #expect(WaveSize.announcedLength(head: Array(head.prefix(20))) == nil, "a head too short for ds64 says nothing")

        // Below 4 GiB the same stream is RIFF, and its length is announced as before.
        let small = CollectingSink()
        _ = try StreamingWaveWriter(sink: small, channels: 2, rate: 8000, bits: 16, frameCount: 8000, info: [("INAM", "Short")])
        #expect(Array(small.bytes[0..<4]) == Array("RIFF".utf8))
        #expect(WaveSize.announcedLength(head: Array(small.bytes.prefix(64))) == Int64(small.bytes.count) + 8000 * 4)
        #expect(WaveSize.announcedLength(head: Array("OggS".utf8) + [UInt8](repeating: 0, count: 60)) == nil)
    }

    /// A small RF64 stream, written in full, is read by libsndfile and ffmpeg as the samples written.
    @Test func anRF64StreamIsReadBackByLibsndfileAndFFmpeg() throws {
        let dir = TemporaryDirectory("rf64-stream")
        let path = dir.file("stream.wav")
        let frames = 4001
        let samples = sineWave(frames: frames, rate: 8000, frequencies: [440, 660])
        let sink = CollectingSink()
        let writer = try StreamingWaveWriter(sink: sink, channels: 2, rate: 8000, bits: 32, frameCount: Int64(frames),
                                             info: [("INAM", "Small")], rf64: true)
        try samples.withUnsafeBufferPointer { (p) throws(IOError) in try writer.write(float: p.baseAddress!, count: p.count) }
        try writer.finish()
        #expect(WaveSize.announcedLength(head: Array(sink.bytes.prefix(64))) == Int64(sink.bytes.count))
        FileManager.default.createFile(atPath: path, contents: Data(sink.bytes))
        let reader = try SoundFileReader(path: path)
        #expect(reader.format == 0x220000, "libsndfile reads it as RF64")
        #expect(reader.rate == 8000 && reader.channels == 2 && reader.frameCount == Int64(frames))
        #expect(try reader.readAll().samples == samples)
        try Self.expectFFmpegReads(path, frames: frames, samples: samples, dir: dir)
    }

    /// A file written as RF64 by libsndfile, with markers appended, stays whole: its ds64 size is the
    /// file's, ffmpeg and `inspect` read it, and the markers are there.
    @Test func anRF64FileWithMarkersIsReadBackByFFmpegAndInspect() throws {
        let dir = TemporaryDirectory("rf64-file")
        let path = dir.file("file.wav")
        let frames = 4001
        let samples = sineWave(frames: frames, rate: 8000, frequencies: [440, 660])
        let output = try AtomicOutputFile(path: path)
        let writer = try SoundFileWriter(file: output, container: .rf64, sampleFormat: .float32, channels: 2, rate: 8000,
                                         tags: [(SoundFileTag.title, "Small")])
        try samples.withUnsafeBufferPointer { (p) throws(IOError) in try writer.write(p.baseAddress!, frameCount: frames) }
        try writer.finish()
        try WaveMarkers.append([WaveMarker(frame: 0, name: "Settle"), WaveMarker(frame: 2000, name: "Breathing")],
                               descriptor: output.descriptor, path: path)
        try output.commit()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[0..<4]) == Array("RF64".utf8) && Array(bytes[12..<16]) == Array("ds64".utf8))
        #expect(Self.le(bytes, 20, 8) == UInt64(bytes.count - 8), "ds64's RIFF size follows the appended markers")
        let reader = try SoundFileReader(path: path)
        #expect(reader.format == 0x220000)
        // The chunks after the audio, walked as RF64 lays them out (the data's size from ds64):
        // the markers' `cue ` chunk with both points, and their labels.
        let dataSize = Int(Self.le(bytes, 28, 8))
        var offset = 12, chunks: [String: [UInt8]] = [:]
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = id == "data" ? dataSize : Int(Self.le(bytes, offset + 4, 4))
            chunks[id] = Array(bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)])
            offset += 8 + size + size % 2
        }
        #expect(offset == bytes.count, "the chunks fill the file exactly")
        let cue = try #require(chunks["cue "])
        #expect(Self.le(cue, 0, 4) == 2 && Self.le(cue, 4 + 24 + 20, 4) == 2000, "two points, the second at frame 2000")
        let labels = String(decoding: chunks["LIST"] ?? [], as: UTF8.self)
        #expect(labels.contains("Settle") && labels.contains("Breathing"))
        #expect(try reader.readAll().samples == samples)
        try Self.expectFFmpegReads(path, frames: frames, samples: samples, dir: dir)
        let inspect = try runMedrender(["inspect", "--json", path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
        #expect(report?["format"] as? String == "RF64", "\(inspect.stdout)")
        #expect(report?["frames"] as? Int == frames, "\(inspect.stdout)")
        #expect((report?["warnings"] as? [String] ?? []).isEmpty, "\(inspect.stdout)")
        // Cut short, its ds64 size says so.
        let cut = dir.file("cut.wav")
        FileManager.default.createFile(atPath: cut, contents: Data(bytes.prefix(bytes.count - 1000)))
        let cutReport = try runMedrender(["inspect", cut])
        #expect(cutReport.stdout.contains("its RF64 header promises \(bytes.count) bytes but it holds \(bytes.count - 1000)")
                    || cutReport.stderr.contains("its RF64 header promises \(bytes.count) bytes"), "\(cutReport.stdout) \(cutReport.stderr)")
    }

    /// ffmpeg decodes `path` to the same float samples.
    static func expectFFmpegReads(_ path: String, frames: Int, samples: [Float], dir: TemporaryDirectory) throws {
        guard let ffmpeg = which("ffmpeg") else { return }
        let raw = dir.file("ffmpeg-\(UUID().uuidString).f32")
        let result = try runProcess(ffmpeg, ["-v", "error", "-i", path, "-f", "f32le", "-c:a", "pcm_f32le", raw])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let decoded = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(decoded.count == frames * 2, "ffmpeg read \(decoded.count / 2) frames")
        #expect(decoded == samples)
    }
}
