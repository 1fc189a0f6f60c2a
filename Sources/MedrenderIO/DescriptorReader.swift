// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Reads a pipe or a socket through a buffer of its own: a line at a time, or an exact count of
/// bytes; what one read brought past a line is kept for the next. It owns the descriptor and
/// closes it when it goes.
///
/// Not `Sendable`: one reader belongs to one thread.
public final class DescriptorReader {
    public let descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// True once the other end has closed and the buffer is empty.
    public private(set) var atEnd = false

    public init(descriptor: Int32, capacity: Int = 64 << 10) {
        self.descriptor = descriptor
        buffer = [UInt8](repeating: 0, count: capacity)
    }

    deinit { close(descriptor) }

    /// Fills the buffer once more; false at the end (or on an error, whose number is `errno`).
    private func fill() -> Bool {
        if start == end { start = 0; end = 0 }
        if end == buffer.count {
            // Moves what is left to the front, or grows the buffer for a line longer than it.
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: $0.baseAddress! + start, count: end - start) }
                end -= start
                start = 0
            } else {
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + end, $0.count - end) }
            if count > 0 { end += count; return true }
            if count < 0, errno == EINTR { continue }
            return false
        }
    }

    /// The next line, without its newline; nil at the end, or when `limit` bytes pass without one.
    public func line(limit: Int = 1 << 24) -> String? {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return text
            }
            guard end - start < limit else { return nil }
            guard fill() else {
                atEnd = true
                return nil
            }
        }
    }

    /// Reads up to `count` bytes into `target`: all of them unless the other end closes first.
    /// The bytes read; fewer than `count` only at the end.
    public func read(into target: UnsafeMutableRawPointer, count: Int) -> Int {
        var done = 0
        while done < count {
            if start == end, !fill() { atEnd = true; break }
            let take = min(count - done, end - start)
            buffer.withUnsafeBytes { (target + done).copyMemory(from: $0.baseAddress! + start, byteCount: take) }
            start += take
            done += take
        }
        return done
    }
}

/// Writing to a pipe or a socket.
public enum DescriptorWriting {
    /// Writes all of `count` bytes from `source` to `descriptor`, retrying short writes; false when
    /// the other end has gone. A socket is written with `MSG_NOSIGNAL`, so that a program that has
    /// ended is an error here, not a SIGPIPE.
    @discardableResult
    public static func writeAll(_ descriptor: Int32, _ source: UnsafeRawPointer, count: Int, socket: Bool = false) -> Bool {
        var done = 0
        while done < count {
            let written = socket ? send(descriptor, source + done, count - done, Int32(MSG_NOSIGNAL))
                                 : write(descriptor, source + done, count - done)
            if written > 0 { done += written; continue }
            if written < 0, errno == EINTR { continue }
            return false
        }
        return true
    }
}
