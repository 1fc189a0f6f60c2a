import CSampleRate
import MedrenderCore

/// Converts audio between sample rates with libsamplerate's streaming API.
///
/// Not `Sendable`: one converter belongs to one thread.
public final class Resampler {
    private let handle: OpaquePointer
    public let channels: Int

    /// The corresponding C function is `src_new`.
    public init(channels: Int, quality: Int32 = Int32(SRC_SINC_MEDIUM_QUALITY)) throws(IOError) {
        guard (1...64).contains(channels) else {
            throw IOError(.library, "cannot resample \(channels) channels; 1 to 64 are possible")
        }
        var error: Int32 = 0
        guard let handle = src_new(quality, Int32(channels), &error) else {
            throw IOError(.library, "cannot start the resampler", cause: String(cString: src_strerror(error)))
        }
        self.handle = handle
        self.channels = channels
    }

    deinit { src_delete(handle) }

    /// The exact length of `frameCount` frames at `from` Hz when played at `to` Hz:
    /// `round(frameCount × to / from)`.
    public static func targetLength(frameCount: Int, from: Int, to: Int) -> Int {
        Int((Int64(frameCount) * Int64(to) * 2 + Int64(from)) / (Int64(from) * 2))
    }

    /// Resamples a whole asset from `from` Hz to `to` Hz, fed in blocks and drained to the end,
    /// then padded with silence or trimmed to exactly `targetLength` frames.
    /// Returns the asset unchanged when the rates match.
    public static func resample(_ asset: AudioAsset, from: Int, to: Int) throws(IOError) -> AudioAsset {
        if from == to || asset.frameCount == 0 { return asset }
        let resampler = try Resampler(channels: asset.channels)
        return try resampler.process(asset, ratio: Double(to) / Double(from),
                                     targetFrames: targetLength(frameCount: asset.frameCount, from: from, to: to))
    }

    /// Resamples one block of a stream by `ratio` (output rate over input rate) and hands what it
    /// makes to `output`, in one or more calls; `endOfInput` on the last block drains the
    /// converter. The corresponding C function is `src_process`.
    public func process(_ input: UnsafePointer<Float>, frameCount: Int, ratio: Double, endOfInput: Bool,
                        output: (UnsafePointer<Float>, Int) throws -> Void) throws {
        let c = channels
        let capacity = Int(Double(max(frameCount, 256)) * ratio) + 64
        if streamBuffer.count < capacity * c { streamBuffer = [Float](repeating: 0, count: capacity * c) }
        var consumed = 0
        while true {
            var data = SRC_DATA()
            data.data_in = input + consumed * c
            data.input_frames = frameCount - consumed
            data.end_of_input = endOfInput ? 1 : 0
            data.src_ratio = ratio
            data.output_frames = capacity
            let handle = self.handle
            let code = streamBuffer.withUnsafeMutableBufferPointer { out -> Int32 in
                data.data_out = out.baseAddress
                return src_process(handle, &data)
            }
            if code != 0 { throw IOError(.library, "resampling failed", cause: String(cString: src_strerror(code))) }
            consumed += Int(data.input_frames_used)
            let produced = Int(data.output_frames_gen)
            if produced > 0 { try streamBuffer.withUnsafeBufferPointer { try output($0.baseAddress!, produced) } }
            if consumed >= frameCount && (!endOfInput || produced == 0) { break }
        }
    }

    private var streamBuffer: [Float] = []

    /// The corresponding C function is `src_process`.
    func process(_ asset: AudioAsset, ratio: Double, targetFrames: Int) throws(IOError) -> AudioAsset {
        let c = channels
        var output = [Float]()
        output.reserveCapacity((targetFrames + 1024) * c)
        let block = 4096
        var outBlock = [Float](repeating: 0, count: (Int(Double(block) * ratio) + 64) * c)
        let outCapacity = outBlock.count / c
        var consumed = 0
        var finished = false
        try asset.samples.withUnsafeBufferPointer { (input) throws(IOError) in
            while !finished {
                let remaining = asset.frameCount - consumed
                let feed = min(block, remaining)
                var data = SRC_DATA()
                data.data_in = input.baseAddress.map { $0 + consumed * c }
                data.input_frames = Int(feed)
                data.end_of_input = feed == remaining ? 1 : 0
                data.src_ratio = ratio
                data.output_frames = Int(outCapacity)
                let code = outBlock.withUnsafeMutableBufferPointer { out -> Int32 in
                    data.data_out = out.baseAddress
                    return src_process(handle, &data)
                }
                if code != 0 {
                    throw IOError(.library, "resampling failed", cause: String(cString: src_strerror(code)))
                }
                consumed += Int(data.input_frames_used)
                let produced = Int(data.output_frames_gen)
                output.append(contentsOf: outBlock[0..<(produced * c)])
                if data.end_of_input == 1 && produced == 0 && consumed >= asset.frameCount { finished = true }
            }
        }
        Self.fit(&output, frames: targetFrames, channels: c, silence: 0)
        return AudioAsset(channels: c, samples: output)
    }

    /// Trims or pads with silence interleaved `samples` to exactly `frames` frames: a converter
    /// drained to the end makes the exact length give or take a few frames.
    static func fit<Sample>(_ samples: inout [Sample], frames: Int, channels: Int, silence: Sample) {
        let have = samples.count / channels
        if have > frames {
            samples.removeLast((have - frames) * channels)
        } else if have < frames {
            samples.append(contentsOf: repeatElement(silence, count: (frames - have) * channels))
        }
    }
}
