import Foundation

/// Bytes to a stream that cannot seek: standard output, or a pipe or device named with `-o`.
/// Every write is checked: a reader that goes away is an error.
public final class StreamOutput: ByteSink {
    public let descriptor: Int32
    /// How errors name it: "standard output", or the path.
    public let name: String
    private let ownsDescriptor: Bool

    /// Standard output.
    public convenience init() { self.init(descriptor: STDOUT_FILENO, name: "standard output") }

    /// A stream already open (standard output or error), left open.
    public init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        ownsDescriptor = false
    }

    /// Opens the pipe or device at `path` for writing (a pipe waits here for its reader).
    public init(path: String) throws(IOError) {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else {
            throw IOError(.cannotCreate, "cannot be opened for writing", path: path, cause: String(cString: strerror(errno)))
        }
        descriptor = fd
        name = path
        ownsDescriptor = true
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// Whether `path` is a pipe or a device (to stream to), rather than a file or folder.
    public static func isStream(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
        try Self.writeAll(bytes, to: descriptor, name: name)
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; a failure is
    /// an error with advice for its cause (disk full, size limit, a reader gone), naming `name`.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, name: String) throws(IOError) {
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw IOError.writeFailed(path: name, errno: errno)
            }
            offset += n
        }
    }

    /// Copies a finished file to the stream.
    public func copy(fromDescriptor fd: Int32, path: String) throws(IOError) {
        do {
            try FileChunks.forEach(inDescriptor: fd, path: path) { try write($0) }
        } catch let error as IOError {
            throw error
        } catch {
            throw IOError(.io, "could not be copied to \(name)", path: path, cause: "\(error)")
        }
    }
}

/// A WAV stream written as it goes, for a stream: the length is known up front, so the
/// header is complete before the first sample.
public final class StreamingWaveWriter {
    let sink: ByteSink
    public let channels: Int
    public let bytesPerSample: Int
    public let isFloat: Bool

    /// - Parameters:
    ///   - bits: 16, 24, or 32 (float).
    ///   - info: `INFO` tags as four-letter keys (`INAM`, `IART`, …) and values.
    ///   - markers: named points, as `cue ` and `LIST/adtl` chunks before the audio (a file gets
    ///     them after it; a stream cannot go back).
    ///   - rf64: write RF64 whatever the length (nil, the default: RF64 only at 4 GiB and more).
    public init(sink: ByteSink, channels: Int, rate: Int, bits: Int, frameCount: Int64, info: [(String, String)],
                markers: [WaveMarker] = [], rf64: Bool? = nil) throws(IOError) {
        self.sink = sink
        self.channels = channels
        self.bytesPerSample = bits / 8
        self.isFloat = bits == 32
        let le16 = { (v: Int) -> [UInt8] in [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        let le32 = { (v: Int64) -> [UInt8] in (0..<4).map { UInt8((v >> (8 * Int64($0))) & 0xFF) } }
        let le64 = { (v: Int64) -> [UInt8] in (0..<8).map { UInt8((v >> (8 * Int64($0))) & 0xFF) } }
        let dataBytes = WaveSize.dataBytes(frameCount: frameCount, channels: channels, bytesPerSample: bytesPerSample)
        // 4 GiB or more: RF64, its sizes in a `ds64` chunk and 0xFFFFFFFF in the 32-bit fields.
        let rf64 = rf64 ?? WaveSize.needsRF64(dataBytes: dataBytes)
        var list: [UInt8] = Array("INFO".utf8)
        for (key, value) in info {
            var text = Array(value.utf8) + [0]
            let size = text.count
            if text.count % 2 == 1 { text.append(0) }
            list += Array(key.utf8) + le32(Int64(size)) + text
        }
        let fmt: [UInt8] = le16(isFloat ? 3 : 1) + le16(channels) + le32(Int64(rate)) + le32(Int64(rate * channels * bytesPerSample))
            + le16(channels * bytesPerSample) + le16(bits)
        let ds64Size = 28
        var header: [UInt8] = Array("WAVE".utf8)
        if rf64 { header += Array("ds64".utf8) + le32(Int64(ds64Size)) + [UInt8](repeating: 0, count: ds64Size) }
        header += Array("fmt ".utf8) + le32(Int64(fmt.count)) + fmt
        if info.count > 0 { header += Array("LIST".utf8) + le32(Int64(list.count)) + list }
        if !markers.isEmpty { header += WaveMarkers.chunks(markers) }
        header += Array("data".utf8) + le32(rf64 ? Int64(UInt32.max) : dataBytes)
        let riffSize = Int64(header.count) + dataBytes + (dataBytes % 2)
        if rf64 {
            // ds64: the RIFF size, the data size, the frame count, and no table.
            header.replaceSubrange(12..<(12 + ds64Size), with: le64(riffSize) + le64(dataBytes) + le64(frameCount) + le32(0))
        }
        try sink.write(bytes: Array((rf64 ? "RF64" : "RIFF").utf8) + le32(rf64 ? Int64(UInt32.max) : riffSize) + header)
        self.padByte = dataBytes % 2 == 1
    }

    private let padByte: Bool
    private var scratch: [UInt8] = []

    /// Writes interleaved samples already quantized: Int16, Int32 (24-bit, left-aligned) or Float.
    public func write(int16 samples: UnsafePointer<Int16>, count: Int) throws(IOError) {
        try sink.write(UnsafeRawBufferPointer(start: samples, count: count * 2))
    }

    public func write(int24 samples: UnsafePointer<Int32>, count: Int) throws(IOError) {
        if scratch.count < count * 3 { scratch = [UInt8](repeating: 0, count: count * 3) }
        for i in 0..<count {
            let v = samples[i] >> 8
            scratch[i * 3] = UInt8(truncatingIfNeeded: v)
            scratch[i * 3 + 1] = UInt8(truncatingIfNeeded: v >> 8)
            scratch[i * 3 + 2] = UInt8(truncatingIfNeeded: v >> 16)
        }
        try sink.write(bytes: scratch, count: count * 3)
    }

    public func write(float samples: UnsafePointer<Float>, count: Int) throws(IOError) {
        try sink.write(UnsafeRawBufferPointer(start: samples, count: count * 4))
    }

    public func finish() throws(IOError) {
        if padByte {
            try sink.write(bytes: [0])
        }
    }
}
