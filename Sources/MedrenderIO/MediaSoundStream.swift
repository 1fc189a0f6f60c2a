// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import MedrenderCore

/// An M4A, MP4 or raw AAC (ADTS) sound, decoded by `medrender-media decode` with FFmpeg's
/// libraries and read from its standard output: a `MediaSoundHeader` line, then the first audio
/// stream's frames, interleaved Float32 at the file's own rate, as `SoundFileReader` delivers every
/// other format. The program ends when the sound has been read, or is ended when this goes.
///
/// Not `Sendable`: one stream belongs to one thread.
final class MediaSoundStream {
    let path: String
    /// The stream's sample rate in hertz.
    let rate: Int
    let channels: Int
    /// The frames the container says the stream holds (a hint: a file cut short holds fewer).
    let frameCount: Int64
    /// The container and codec, such as `M4A (AAC)`.
    let formatName: String
    private let fileTags: [(String, String)]
    private let program: String
    private let process: ProcessGroup
    private let output: DescriptorReader
    private var finished = false

    /// Starts the program on `path` and reads the sound's header.
    init(path: String) throws(IOError) {
        let program = try MediaProgram.path()
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw IOError(.io, "cannot be decoded: no pipe for \(MediaProgram.name)", path: path, cause: String(cString: strerror(errno)))
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let output = DescriptorReader(descriptor: ends[0])
        let process: ProcessGroup
        do {
            defer { close(ends[1]) }
            process = try ProcessGroup(executable: program, arguments: ["decode", path], descriptors: [1: ends[1]])
        }
        guard let line = output.line(limit: 1 << 20) else {
            try Self.finish(process, program: program, path: path)
            throw IOError(.library, "\(MediaProgram.name) wrote no header", path: path)
        }
        let header: MediaSoundHeader
        do {
            header = try JSONDecoder().decode(MediaSoundHeader.self, from: Data(line.utf8))
        } catch {
            throw IOError(.library, "\(MediaProgram.name) wrote a header medrender cannot read", path: path, cause: "\(error)")
        }
        // A stream with no channels or no rate has no frames to read (and a frame of no bytes).
        guard header.rate > 0, (1...64).contains(header.channels) else {
            throw IOError(.badData, "has an audio stream of \(header.channels) channels at \(header.rate) Hz, which medrender cannot play; "
                          + "convert it to a WAV or FLAC with one or two channels", path: path)
        }
        self.path = path
        self.program = program
        self.process = process
        self.output = output
        rate = header.rate
        channels = header.channels
        frameCount = header.frameCount
        formatName = header.formatName
        fileTags = header.tags.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    /// Waits for the program, which has closed its output, to exit, and throws its failure.
    private static func finish(_ process: ProcessGroup, program: String, path: String) throws(IOError) {
        let ending = process.wait(limitSeconds: 60) { false }
        guard ending != .exited(0) else { return }
        var failure = MediaProgram.failure(ending, errorText: String(decoding: process.errorTail.bytes, as: UTF8.self), program: program)
        if failure.kind == .library, failure.path == program { failure.message = "\(MediaProgram.name) \(failure.message) decoding \(path)" }
        throw failure.ioError
    }

    /// Reads up to `frameCount` frames into `buffer` (interleaved, `channels` wide); returns how
    /// many were read, 0 at the end. At the end, the program's failure, if it failed, is thrown.
    func read(into buffer: UnsafeMutablePointer<Float>, frameCount asked: Int) throws(IOError) -> Int {
        guard !finished, asked > 0 else { return 0 }
        let frameBytes = channels * MemoryLayout<Float>.size
        let got = output.read(into: UnsafeMutableRawPointer(buffer), count: asked * frameBytes)
        if got < asked * frameBytes {
            finished = true
            try Self.finish(process, program: program, path: path)
            guard got % frameBytes == 0 else {
                throw IOError(.library, "\(MediaProgram.name) ended midway through a frame", path: path)
            }
        }
        return got / frameBytes
    }

    /// The file's tags, as `SoundFileReader.tags()` names them.
    func tags() -> [(String, String)] { fileTags }

    /// Whether `path` is one libavformat reads for medrender: by its name (`.m4a`, `.m4b`, `.mp4`,
    /// `.aac`, `.3gp`) or by its first bytes (an MP4 `ftyp` box, an ADTS sync word).
    static func handles(path: String) -> Bool {
        if ["m4a", "m4b", "mp4", "aac", "3gp"].contains(URL(fileURLWithPath: path).pathExtension.lowercased()) { return true }
        guard let head = FileChunks.prefix(ofFileAt: path, count: 12), head.count == 12 else { return false }
        if Array(head[4..<8]) == Array("ftyp".utf8) { return true }
        // ADTS: 12 sync bits, then the MPEG version, and layer 00 (MP3 has a layer, 01 to 11).
        return head[0] == 0xFF && (head[1] & 0xF6) == 0xF0
    }
}
