import Foundation
import MedrenderCore
import MedrenderIO

/// The encoder alone: reads a finished mix and encodes it to OGG Vorbis, nothing else. The
/// benchmark's floor: what a render can at best cost is what encoding its mix costs.
public enum EncoderFloor {
    public static func encodeVorbis(from input: String, to output: String, quality: Double) throws {
        let reader = try SoundFileReader(path: input)
        let file = try AtomicOutputFile(path: output)
        let encoder = try VorbisEncoder(sink: file, channels: reader.channels, rate: reader.rate, quality: quality)
        var buffer = [Float](repeating: 0, count: Renderer.blockFrames * reader.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) -> Int in
                let n = try reader.read(into: p.baseAddress!, frameCount: Renderer.blockFrames)
                if n > 0 { try encoder.write(p.baseAddress!, frameCount: n) }
                return n
            }
            if n == 0 { break }
        }
        try encoder.finish()
        try file.commit()
    }
}
