import MedrenderCore
import MedrenderIO

/// Takes the finished mix, Float32 interleaved, and writes it in a file format.
protocol FrameEncoder: AnyObject {
    func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError)
    func finish() throws(IOError)
}

extension VorbisEncoder: FrameEncoder {}
extension PiecedVorbisEncoder: FrameEncoder {}

/// Quantizes the mix for a sample format: TPDF-dithered 16 bits, 24 bits, or 32-bit float as it
/// is, into buffers allocated once.
final class SampleQuantizer {
    let format: SampleFormat
    let channels: Int
    private var dither: TPDFDither
    private var shorts: [Int16]
    private var ints: [Int32]

    init(format: SampleFormat, channels: Int, blockFrames: Int, seed: UInt64) {
        self.format = format
        self.channels = channels
        self.dither = TPDFDither(seed: seed)
        self.shorts = [Int16](repeating: 0, count: format == .int16 ? blockFrames * channels : 0)
        self.ints = [Int32](repeating: 0, count: format == .int24 ? blockFrames * channels : 0)
    }

    /// Quantizes `frameCount` frames and hands them to the writer for the format.
    func write(
        _ frames: UnsafePointer<Float>, frameCount: Int, float: (UnsafePointer<Float>) throws(IOError) -> Void,
        int16: (UnsafePointer<Int16>) throws(IOError) -> Void, int24: (UnsafePointer<Int32>) throws(IOError) -> Void
    ) throws(IOError) {
        let count = frameCount * channels
        switch format {
        case .float32:
            try float(frames)
        case .int16:
            try shorts.withUnsafeMutableBufferPointer { (out) throws(IOError) in
                dither.quantize(frames, out.baseAddress!, count: count)
                try int16(out.baseAddress!)
            }
        case .int24:
            try ints.withUnsafeMutableBufferPointer { (out) throws(IOError) in
                Quantizer24.quantize(frames, out.baseAddress!, count: count)
                try int24(out.baseAddress!)
            }
        }
    }
}

/// Writes through libsndfile, dithering to 16 bits or quantizing to 24 as the format asks.
final class SoundFileFrameEncoder: FrameEncoder {
    let writer: SoundFileWriter
    private let quantizer: SampleQuantizer

    init(writer: SoundFileWriter, channels: Int, blockFrames: Int, seed: UInt64) {
        self.writer = writer
        self.quantizer = SampleQuantizer(format: writer.sampleFormat, channels: channels, blockFrames: blockFrames, seed: seed)
    }

    func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        try quantizer.write(
            frames, frameCount: frameCount,
            float: { (p) throws(IOError) in try writer.write(p, frameCount: frameCount) },
            int16: { (p) throws(IOError) in try writer.write(p, frameCount: frameCount) },
            int24: { (p) throws(IOError) in try writer.write(p, frameCount: frameCount) })
    }

    func finish() throws(IOError) { try writer.finish() }
}
