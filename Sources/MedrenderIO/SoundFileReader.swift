import CSndFile
import Foundation
import MedrenderCore

/// Reads any file libsndfile decodes (WAV, FLAC, OGG, Opus, MP3, AIFF, …), and M4A/AAC as
/// medrender-media decodes it with libavformat and libavcodec (`MediaSoundStream`), as Float32 frames.
///
/// Not `Sendable`: one reader belongs to one thread.
public final class SoundFileReader {
    /// libsndfile's handle, or nil for a file libav decodes.
    private let handle: OpaquePointer?
    private let media: MediaSoundStream?
    public let path: String
    /// The file's sample rate in hertz.
    public let rate: Int
    public let channels: Int
    /// The number of frames the header promises (a truncated file may deliver fewer).
    public let frameCount: Int64
    /// The libsndfile major format (`SF_FORMAT_WAV`, …); 0 for a file libav decodes.
    public let format: Int32
    /// The container and codec of a file libav decodes, such as `M4A (AAC)`; nil for libsndfile's.
    public let mediaFormatName: String?
    /// libsndfile's encoding within the container (`SF_FORMAT_SUBMASK`): Vorbis or Opus in Ogg.
    public let encoding: Int32

    /// Opens `path` for reading. The corresponding C function is `sf_open`. An Opus file is
    /// decoded at `opusRate` when given (8, 12, 16, 24 or 48 kHz; libopus decodes at any of them,
    /// and a player at 48 kHz), else at the rate it was encoded from.
    public init(path: String, opusRate: Int? = nil) throws(IOError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw IOError(.missingInput, "no such file", path: path)
        }
        if isDirectory.boolValue { throw IOError(.missingInput, "is a folder, not a sound file", path: path) }
        // Opening a pipe would wait for a writer for ever.
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw IOError(.missingInput, "is not a regular file (a pipe or a device?); give a sound file", path: path)
        }
        // Opened as the reader will open it (not `access`, which asks about the real user, not the
        // one the open is checked for); a regular file opens at once.
        let probe = open(path, O_RDONLY | O_CLOEXEC)
        guard probe >= 0 else {
            throw IOError(.missingInput, "cannot be read: check its permissions", path: path, cause: String(cString: strerror(errno)))
        }
        close(probe)
        if MediaSoundStream.handles(path: path) {
            let media = try MediaSoundStream(path: path)
            self.handle = nil
            self.media = media
            self.rate = media.rate
            self.channels = media.channels
            self.frameCount = media.frameCount
            self.format = 0
            self.encoding = 0
            self.mediaFormatName = media.formatName
        } else {
            var info = SF_INFO()
            guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
                throw IOError(
                    .badData, "is not a sound file medrender can read (WAV, FLAC, OGG, Opus, MP3, AIFF, M4A/AAC)", path: path,
                    cause: String(cString: sf_strerror(nil)))
            }
            if var wanted = opusRate.map(Int32.init), info.format & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_OPUS),
               sf_command(handle, Int32(SFC_SET_ORIGINAL_SAMPLERATE), &wanted, Int32(MemoryLayout<Int32>.size)) == SF_TRUE {
                // The decoder now gives that rate, and the length in its frames.
                sf_command(handle, Int32(SFC_GET_CURRENT_SF_INFO), &info, Int32(MemoryLayout<SF_INFO>.size))
            }
            self.handle = handle
            self.media = nil
            self.rate = Int(info.samplerate)
            self.channels = Int(info.channels)
            // A header with no length (a FLAC stream whose STREAMINFO says 0 samples, which FLAC
            // defines as unknown) is read through once to count its frames.
            self.frameCount = info.frames == sf_count_t.max
                ? try Self.countFrames(handle, channels: Int(info.channels), path: path) : Int64(info.frames)
            self.format = info.format & Int32(SF_FORMAT_TYPEMASK)
            self.encoding = info.format & Int32(SF_FORMAT_SUBMASK)
            self.mediaFormatName = nil
        }
        guard channels >= 1, channels <= 64 else {
            throw IOError(.badData, "has \(channels) channels; medrender reads 1 to 64", path: path)
        }
        guard rate >= 1000, rate <= 768_000 else {
            throw IOError(.badData, "says its sample rate is \(rate) Hz; medrender reads 1000 to 768000 Hz", path: path)
        }
    }

    deinit { if let handle { sf_close(handle) } }

    /// The frames of a stream whose header gives no length, counted by decoding it; the stream is
    /// then back at its start. The corresponding C function is `sf_readf_float`.
    private static func countFrames(_ handle: OpaquePointer, channels: Int, path: String) throws(IOError) -> Int64 {
        guard channels >= 1, channels <= 64 else { return 0 }
        var buffer = [Float](repeating: 0, count: 4096 * channels)
        var total: Int64 = 0
        while true {
            let got = buffer.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress!, 4096) }
            if got <= 0 { break }
            total += Int64(got)
        }
        if total > 0, sf_seek(handle, 0, SEEK_SET) != 0 {
            sf_close(handle)
            throw IOError(.badData, "gives no length and cannot be read again from its start", path: path)
        }
        return total
    }

    /// Reads up to `frameCount` frames into `buffer` (interleaved, `channels` wide); returns how
    /// many were read, 0 at the end. The corresponding C function is `sf_readf_float`.
    public func read(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) throws(IOError) -> Int {
        guard let handle else { return try media!.read(into: buffer, frameCount: frameCount) }
        let got = sf_readf_float(handle, buffer, sf_count_t(frameCount))
        let code = sf_error(handle)
        if code != SF_ERR_NO_ERROR {
            throw IOError(.badData, "could not be decoded", path: path, cause: String(cString: sf_strerror(handle)))
        }
        return Int(got)
    }

    /// The file's string tags (title, artist, …) by name. The corresponding C function is `sf_get_string`.
    public func tags() -> [(String, String)] {
        guard let handle else { return media?.tags() ?? [] }
        let kinds: [(String, Int32)] = [
            ("title", Int32(SF_STR_TITLE)), ("artist", Int32(SF_STR_ARTIST)), ("album", Int32(SF_STR_ALBUM)),
            ("date", Int32(SF_STR_DATE)), ("comment", Int32(SF_STR_COMMENT)), ("copyright", Int32(SF_STR_COPYRIGHT)),
            ("license", Int32(SF_STR_LICENSE)), ("software", Int32(SF_STR_SOFTWARE)),
        ]
        return kinds.compactMap { name, kind in sf_get_string(handle, kind).map { (name, String(cString: $0)) } }
    }

    /// The speaker of each channel as the file declares it (a WAVE_FORMAT_EXTENSIBLE channel mask,
    /// a CAF layout), as `SF_CHANNEL_MAP_*` values; nil when the file says nothing. The
    /// corresponding C command is `SFC_GET_CHANNEL_MAP_INFO`.
    public func channelMap() -> [Int32]? {
        guard let handle else { return nil }
        var map = [Int32](repeating: 0, count: channels)
        let size = Int32(channels * MemoryLayout<Int32>.size)
        let ok = map.withUnsafeMutableBufferPointer { sf_command(handle, Int32(SFC_GET_CHANNEL_MAP_INFO), $0.baseAddress, size) }
        guard ok == SF_TRUE, map.contains(where: { Int($0) != Int(SF_CHANNEL_MAP_INVALID) }) else { return nil }
        return map
    }

    /// How each channel counts in a loudness measurement (ITU BS.1770): from the file's channel
    /// map, else from the usual layout for its channel count (5.1 for 6: L R C LFE Ls Rs; 7.1
    /// for 8), as ffmpeg assumes. The LFE is left out and the surrounds weigh +1.5 dB.
    public func loudnessRoles() -> [LoudnessChannelRole] {
        if let map = channelMap() {
            return map.map { speaker in
                switch Int(speaker) {
                case Int(SF_CHANNEL_MAP_LFE): .unused
                case Int(SF_CHANNEL_MAP_LEFT), Int(SF_CHANNEL_MAP_FRONT_LEFT), Int(SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER): .left
                case Int(SF_CHANNEL_MAP_RIGHT), Int(SF_CHANNEL_MAP_FRONT_RIGHT), Int(SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER): .right
                case Int(SF_CHANNEL_MAP_REAR_LEFT), Int(SF_CHANNEL_MAP_SIDE_LEFT), Int(SF_CHANNEL_MAP_REAR_CENTER): .leftSurround
                case Int(SF_CHANNEL_MAP_REAR_RIGHT), Int(SF_CHANNEL_MAP_SIDE_RIGHT): .rightSurround
                default: .center
                }
            }
        }
        return LoudnessChannelRole.defaultLayout(channels: channels)
    }

    /// The file's cue points (WAV markers) with their labels. The corresponding C command is `SFC_GET_CUE`.
    public func cuePoints() -> [(frame: Int64, name: String)] {
        guard let handle else { return [] }
        var count: UInt32 = 0
        guard sf_command(handle, Int32(SFC_GET_CUE_COUNT), &count, Int32(MemoryLayout<UInt32>.size)) == SF_TRUE, count > 0 else {
            return []
        }
        let stride = MemoryLayout<SF_CUE_POINT>.stride
        let size = MemoryLayout<UInt32>.stride + Int(count) * stride + 16
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        guard sf_command(handle, Int32(SFC_GET_CUE), raw, Int32(size)) == SF_TRUE else { return [] }
        let got = Int(raw.load(as: UInt32.self))
        let first = MemoryLayout<UInt32>.stride.roundedUp(to: MemoryLayout<SF_CUE_POINT>.alignment)
        return (0..<min(got, Int(count))).map { i in
            let point = (raw + first + i * stride).load(as: SF_CUE_POINT.self)
            let name = withUnsafeBytes(of: point.name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return (Int64(point.sample_offset), name)
        }
    }

    /// Folds `frames` frames of `channels` channels to at most two: odd channels averaged to the
    /// left, even ones to the right; one or two channels are copied as they are.
    public static func fold(_ input: [Float], channels: Int, frames: Int, into output: inout [Float]) {
        if channels <= 2 {
            for i in 0..<(frames * channels) { output[i] = input[i] }
            return
        }
        let leftCount = Float((channels + 1) / 2), rightCount = Float(channels / 2)
        for f in 0..<frames {
            var l: Float = 0, r: Float = 0
            for c in 0..<channels {
                if c % 2 == 0 { l += input[f * channels + c] } else { r += input[f * channels + c] }
            }
            output[f * 2] = l / leftCount
            output[f * 2 + 1] = r / rightCount
        }
    }

    /// The most samples (frames × channels, after folding to stereo) a sound may hold once decoded,
    /// before and after resampling: each is held in memory, and 2^29 Float samples are 2 GiB
    /// (93 minutes of stereo, 3 hours of mono at 48000 Hz).
    public static let maximumSamples = 1 << 29

    private func tooLong(frames: Int64, maximumFrames: Int64) -> IOError {
        IOError(.badData, "is \(Self.clock(Double(frames) / Double(rate))) long; medrender holds each sound in memory and takes "
            + "\(Self.clock(Double(maximumFrames) / Double(rate))) of this one at most: use a shorter sound", path: path)
    }

    /// `h:mm:ss` (or `m:ss`).
    static func clock(_ seconds: Double) -> String { ClockLabel.of(seconds: seconds) }

    /// Every frame, as `readAll` reads them (a file of more than two channels folded to stereo),
    /// rounded to 16 bits at `Int16.heldStep` a block at a time: a long bed is never held in floats.
    public func readAllHeld(maximumFrames: Int64? = nil) throws(IOError) -> QuantizedAsset {
        QuantizedAsset(channels: min(channels, 2), held: try readAll(maximumFrames: maximumFrames, as: Int16.init(held:)))
    }

    /// Reads the whole file, in blocks, as mono or stereo: more than two channels are folded down
    /// to two (odd channels left, even channels right).
    ///
    /// - Parameter maximumFrames: refuse longer files, so a sound cannot exhaust memory; by
    ///   default, as many as `maximumSamples` allows.
    public func readAll(maximumFrames: Int64? = nil) throws(IOError) -> AudioAsset {
        AudioAsset(channels: min(channels, 2), samples: try readAll(maximumFrames: maximumFrames, as: { $0 }))
    }

    /// The whole file's interleaved samples, mono or stereo, each made by `convert` as its block
    /// is read.
    private func readAll<Sample>(maximumFrames: Int64?, as convert: (Float) -> Sample) throws(IOError) -> [Sample] {
        var samples: [Sample] = []
        // The header's length is a hint, not a promise (a small file may claim hours): reserve at
        // most 2^24 samples up front and let the rest grow as it is read.
        samples.reserveCapacity(min(Int(max(0, frameCount)) * min(channels, 2), 1 << 24))
        try readBlocks(maximumFrames: maximumFrames) { block in samples.append(contentsOf: block.lazy.map(convert)) }
        return samples
    }

    /// Every frame resampled to `target` Hz (exactly `Resampler.targetLength` frames) and rounded
    /// to 16 bits at `Int16.heldStep` a block at a time, as `readAllHeld` reads them: neither the
    /// file's rate nor the target's is ever held in floats. The same as `readAllHeld` at the file's
    /// own rate.
    ///
    /// - Parameter maximumSamples: refuse a file whose samples at `target` Hz would be more.
    public func readAllHeld(resampledTo target: Int, maximumSamples: Int = SoundFileReader.maximumSamples) throws(IOError) -> QuantizedAsset {
        let outChannels = min(channels, 2)
        let maximumFrames = Int64(Double(maximumSamples / outChannels) * Double(rate) / Double(target))
        if target == rate { return try readAllHeld(maximumFrames: maximumFrames) }
        let resampler = try Resampler(channels: outChannels)
        let ratio = Double(target) / Double(rate)
        var samples: [Int16] = []
        samples.reserveCapacity(min(Resampler.targetLength(frameCount: Int(max(0, frameCount)), from: rate, to: target) * outChannels, 1 << 24))
        var frames = 0
        let take = { (block: UnsafeBufferPointer<Float>, end: Bool) throws(IOError) in
            do {
                try resampler.process(block.baseAddress!, frameCount: block.count / outChannels, ratio: ratio, endOfInput: end) { p, n in
                    samples.append(contentsOf: UnsafeBufferPointer(start: p, count: n * outChannels).lazy.map(Int16.init(held:)))
                }
            } catch let error as IOError { throw error } catch {
                throw IOError(.library, "resampling failed", cause: "\(error)")
            }
        }
        try readBlocks(maximumFrames: maximumFrames) { (block) throws(IOError) in
            frames += block.count / outChannels
            try block.withUnsafeBufferPointer { (p) throws(IOError) in try take(p, false) }
        }
        let none = [Float](repeating: 0, count: outChannels)
        try none.withUnsafeBufferPointer { (p) throws(IOError) in try take(UnsafeBufferPointer(rebasing: p[0..<0]), true) }
        Resampler.fit(&samples, frames: Resampler.targetLength(frameCount: frames, from: rate, to: target), channels: outChannels, silence: 0)
        return QuantizedAsset(channels: outChannels, held: samples)
    }

    /// Reads the whole file a block at a time, as mono or stereo (more than two channels folded),
    /// and hands each block's interleaved samples to `body`.
    private func readBlocks(maximumFrames: Int64?, _ body: (ArraySlice<Float>) throws(IOError) -> Void) throws(IOError) {
        let outChannels = min(channels, 2)
        let maximumFrames = maximumFrames ?? Int64(Self.maximumSamples / outChannels)
        guard frameCount <= maximumFrames else { throw tooLong(frames: frameCount, maximumFrames: maximumFrames) }
        let block = 4096
        var buffer = [Float](repeating: 0, count: block * channels)
        var folded = [Float](repeating: 0, count: block * 2)
        var total: Int64 = 0
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { (p) throws(IOError) -> Int in
                try read(into: p.baseAddress!, frameCount: block)
            }
            if got == 0 { break }
            if channels > 2 { Self.fold(buffer, channels: channels, frames: got, into: &folded) }
            let frames = channels > 2 ? folded[0..<(got * 2)] : buffer[0..<(got * channels)]
            if frames.contains(where: { !$0.isFinite }) {
                throw IOError(.badData, "holds samples that are not numbers (NaN or infinity)", path: path)
            }
            total += Int64(got)
            if total > maximumFrames { throw tooLong(frames: total, maximumFrames: maximumFrames) }
            try body(frames)
        }
    }
}

extension Int {
    func roundedUp(to alignment: Int) -> Int { (self + alignment - 1) / alignment * alignment }
}
