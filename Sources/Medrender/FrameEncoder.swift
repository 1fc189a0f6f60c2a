import MedrenderCore
import MedrenderIO

/// Takes the finished mix, Float32 interleaved, and writes it in a file format.
protocol FrameEncoder: AnyObject {
    func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError)
    func finish() throws(IOError)
}

extension VorbisEncoder: FrameEncoder {}

/// Writes through libsndfile, dithering to 16 bits or quantizing to 24 as the format asks.
final class SoundFileFrameEncoder: FrameEncoder {
    let writer: SoundFileWriter
    let channels: Int
    private var dither: TPDFDither
    private var shorts: [Int16]
    private var ints: [Int32]

    init(writer: SoundFileWriter, channels: Int, blockFrames: Int, seed: UInt64) {
        self.writer = writer
        self.channels = channels
        self.dither = TPDFDither(seed: seed)
        self.shorts = writer.sampleFormat == .int16 ? [Int16](repeating: 0, count: blockFrames * channels) : []
        self.ints = writer.sampleFormat == .int24 ? [Int32](repeating: 0, count: blockFrames * channels) : []
    }

    func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        switch writer.sampleFormat {
        case .float32:
            try writer.write(frames, frameCount: frameCount)
        case .int16:
            try shorts.withUnsafeMutableBufferPointer { (out) throws(IOError) in
                dither.quantize(frames, out.baseAddress!, count: frameCount * channels)
                try writer.write(UnsafePointer(out.baseAddress!), frameCount: frameCount)
            }
        case .int24:
            try ints.withUnsafeMutableBufferPointer { (out) throws(IOError) in
                Quantizer24.quantize(frames, out.baseAddress!, count: frameCount * channels)
                try writer.write(UnsafePointer(out.baseAddress!), frameCount: frameCount)
            }
        }
    }

    func finish() throws(IOError) { try writer.finish() }
}
