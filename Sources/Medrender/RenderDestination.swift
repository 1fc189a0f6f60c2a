import MedrenderIO

/// Where a caller takes a render's bytes as the encoder produces them: an app's buffer, a socket,
/// an HTTP response. A write that throws stops the render, which then frees everything it held.
public protocol RenderSink: AnyObject, Sendable {
    /// Takes the next bytes of the file. The buffer is valid only during the call.
    func write(_ bytes: UnsafeRawBufferPointer) throws

    /// True once the reader has gone: the render stops at its next block, in either pass, even
    /// before it has written anything (a FLAC, MP3 or Opus stream is written only when done, and
    /// pass 1 writes nothing). Default false.
    var isStopped: Bool { get }
}

extension RenderSink {
    public var isStopped: Bool { false }
}

/// Where a render's audio goes.
public enum RenderDestination: Sendable {
    /// A file, written beside its place and renamed into it once complete: a failed or
    /// interrupted render leaves nothing behind and never touches a file already there. A pipe or
    /// a device is written into instead, as a stream.
    case file(String)
    /// Standard output, as a stream.
    case standardOutput
    /// The caller's sink, as a stream. OGG and WAV reach it as they are encoded; FLAC, Opus and
    /// MP3 need to seek while they are written, so they follow when the render is done.
    case sink(any RenderSink)

    /// The name messages and the report give it.
    var name: String {
        switch self {
        case .file(let path): path
        case .standardOutput: OutputWriter.standardOutput
        case .sink: "stream"
        }
    }

    /// The file path, when the destination is a file.
    var filePath: String? {
        if case .file(let path) = self { path } else { nil }
    }
}

/// A caller's sink as the encoders' byte sink: its errors become I/O errors (a client that went
/// away, say).
final class RenderSinkAdapter: ByteSink {
    let sink: any RenderSink
    init(_ sink: any RenderSink) { self.sink = sink }

    func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
        do {
            try sink.write(bytes)
        } catch let error as IOError {
            throw error
        } catch {
            throw IOError(.io, "the stream stopped taking the output", path: "stream", cause: "\(error)")
        }
    }
}
