import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// A render records the waveform of the file it writes as the frames go to the encoder
/// (`WaveformStore`), so a build's preview pages need not decode each file again: it is the
/// waveform read from the file, exactly for 32-bit floats, within the codec's error for an OGG.
@Suite struct WaveformTests {
    /// The peak of each slice, read from the file as `PreviewWriter.envelope` reads it.
    static func fromFile(_ path: String) throws -> [Float] {
        let reader = try SoundFileReader(path: path)
        let envelope = WaveformEnvelope(frames: reader.frameCount, channels: reader.channels)
        var buffer = [Float](repeating: 0, count: 4096 * reader.channels)
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frameCount: 4096) }
            if got <= 0 { break }
            buffer.withUnsafeBufferPointer { envelope.add($0.baseAddress!, frameCount: got) }
        }
        return envelope.peaks
    }

    static func render(_ format: OutputFormat, ext: String, dir: TemporaryDirectory) throws -> (recorded: [Float]?, file: String) {
        let library = PresetLibrary(root: PackagePaths.root)
        let preset = try library.presetPath("box-breath")
        let path = dir.file("out.\(ext)")
        var request = RenderRequest(session: try PresetDecoder.load(path: preset), presetFile: preset,
                                    options: RenderOptions(rate: 44100, channels: 2, length: .duration(.seconds(40))),
                                    format: format, destination: .file(path), library: library)
        request.waveforms = WaveformStore()
        _ = try Renderer.render(request)
        return (request.waveforms?.peaks(for: path), path)
    }

    @Test func aFloatFilesWaveformIsTheOneReadFromIt() throws {
        let dir = TemporaryDirectory("waveform-float")
        let (recorded, file) = try Self.render(.wav(.float32), ext: "wav", dir: dir)
        let read = try Self.fromFile(file)
        #expect(read.count == WaveformEnvelope.previewSlices && read.contains { $0 > 0.1 })
        #expect(recorded == read)
    }

    @Test func anOGGsWaveformIsTheDecodedOneWithinTheCodecsError() throws {
        let dir = TemporaryDirectory("waveform-ogg")
        let (recorded, file) = try Self.render(.ogg(quality: 5), ext: "ogg", dir: dir)
        let read = try Self.fromFile(file)
        let kept = try #require(recorded)
        #expect(kept.count == read.count)
        // The codec keeps noise's spectrum, not its waveform (the rain's peaks move by up to 2 dB at
        // q5), and smears an attack over its block (2,048 frames, more than a slice of this 40-s
        // render): each slice's peak, either way, is within 3 dB of the other's largest over the
        // slice and its neighbours, where it is over -40 dBFS.
        func within(_ a: [Float], _ b: [Float]) -> [Double] {
            a.indices.filter { a[$0] > 0.01 }.map { i in
                let near = b[max(0, i - 1)...min(b.count - 1, i + 1)].max()!
                return 20 * log10(Double(a[i]) / Double(near))
            }
        }
        let over = within(kept, read) + within(read, kept)
        #expect(over.count > read.count && over.max()! < 3, "\(over.max() ?? 0) dB over \(over.count) slices")
    }

    /// Frames fall in the slices the file's reading puts them in, however the blocks split them.
    @Test func slicesSplitFramesAsTheFileReaderDoes() {
        let envelope = WaveformEnvelope(slices: 3, frames: 10, channels: 1)
        let samples: [Float] = [1, 0, 0, 2, 0, 0, 0, 3, 0, 0.5]
        // Frames 0-3 are slice 0, 4-6 slice 1, 7-9 slice 2 (i × 3 / 10), fed in uneven blocks.
        samples.withUnsafeBufferPointer { p in
            envelope.add(p.baseAddress!, frameCount: 2)
            envelope.add(p.baseAddress! + 2, frameCount: 5)
            envelope.add(p.baseAddress! + 7, frameCount: 3)
        }
        #expect(envelope.peaks == [2, 0, 3])
    }
}
