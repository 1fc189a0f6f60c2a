import Foundation

/// An HTTP/1.1 response as it came off a socket: its head, its body with the framing taken off
/// (chunks decoded), and whether the body arrived whole by that framing. For the tests that hold
/// a connection themselves (curl would hide how a stream ended).
struct RawHTTPResponse {
    enum Framing: Equatable {
        case contentLength(Int)
        case chunked
        /// Neither: the body ends where the connection does.
        case toClose
    }

    var status: Int
    /// The header fields, their names in lower case.
    var headers: [String: String]
    var framing: Framing
    var body: [UInt8]
    /// The body ended where its framing says: exactly Content-Length bytes, or the chunk of
    /// length 0 and the blank line after it. (Never for `toClose`: only the peer's close ends it.)
    var isWhole: Bool
    /// Bytes after the body's end (a server that answered once and closed sends none).
    var trailing: Int

    /// Parses `bytes`, the response's bytes from its first on; nil while its head is not all in.
    init?(_ bytes: [UInt8]) throws {
        let blank = Array("\r\n\r\n".utf8)
        guard let headEnd = Self.find(blank, in: bytes, from: 0) else { return nil }
        let lines = String(decoding: bytes[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
            throw ServeTestError("not an HTTP/1.x status line: \(lines[0])")
        }
        self.status = status
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw ServeTestError("not a header field: \(line)") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        let start = headEnd + blank.count
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            framing = .chunked
            (body, isWhole, trailing) = try Self.dechunk(bytes, from: start)
        } else if let text = headers["content-length"] {
            guard let length = Int(text), length >= 0 else { throw ServeTestError("Content-Length: \(text)") }
            framing = .contentLength(length)
            body = Array(bytes[start..<min(bytes.count, start + length)])
            isWhole = bytes.count - start >= length
            trailing = max(0, bytes.count - start - length)
        } else {
            framing = .toClose
            body = Array(bytes[start...])
            isWhole = false
            trailing = 0
        }
    }

    /// The body of a chunked message from `start`: the chunks' data, whether the last chunk and
    /// the blank line after it came, and how many bytes follow them.
    static func dechunk(_ bytes: [UInt8], from start: Int) throws -> (body: [UInt8], whole: Bool, trailing: Int) {
        let lineEnd = Array("\r\n".utf8)
        var body: [UInt8] = []
        var at = start
        while let end = find(lineEnd, in: bytes, from: at) {
            // The size in hexadecimal, maybe followed by extensions after a semicolon.
            let sizeText = String(decoding: bytes[at..<end], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw ServeTestError("not a chunk size at byte \(at): \(sizeText.prefix(20))")
            }
            let data = end + lineEnd.count
            if size == 0 {
                // Trailer fields, if any, then a blank line.
                var line = data
                while let next = find(lineEnd, in: bytes, from: line) {
                    if next == line { return (body, true, bytes.count - next - lineEnd.count) }
                    line = next + lineEnd.count
                }
                return (body, false, 0)
            }
            guard bytes.count >= data + size + lineEnd.count else {
                body += bytes[data..<min(bytes.count, data + size)]
                return (body, false, 0)
            }
            guard bytes[(data + size)..<(data + size + lineEnd.count)].elementsEqual(lineEnd) else {
                throw ServeTestError("a chunk of \(size) bytes at byte \(at) does not end with CRLF")
            }
            body += bytes[data..<(data + size)]
            at = data + size + lineEnd.count
        }
        return (body, false, 0)
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for i in start...(bytes.count - needle.count) where bytes[i] == needle[0] {
            if bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }

    /// Reads the rest of a response from `socket` (`start` is what was read of it already) until
    /// its body is whole by its framing, the server closes the connection, or `deadline` seconds
    /// pass (a deadline only a hung server meets). The response as far as it came.
    static func read(from socket: Int32, startingWith start: [UInt8] = [], deadline: Double = 120) throws -> RawHTTPResponse {
        var bytes = start
        var parsed = try RawHTTPResponse(bytes)
        if parsed?.isWhole == true { return parsed! }
        let end = Date().addingTimeInterval(deadline)
        while let more = receive(socket, until: end) {
            bytes += more
            parsed = try RawHTTPResponse(bytes)
            if parsed?.isWhole == true { break }
        }
        guard let parsed else { throw ServeTestError("no whole response head in \(bytes.count) bytes") }
        return parsed
    }

    /// Reads `socket` until the peer closes the connection (an end of file, or a reset) or
    /// `deadline` seconds pass: the bytes, and whether the connection was closed.
    static func readToClose(_ socket: Int32, deadline: Double = 120) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        let end = Date().addingTimeInterval(deadline)
        while true {
            switch receiveOrClose(socket, until: end) {
            case .bytes(let more): bytes += more
            case .closed: return (bytes, true)
            case .timedOut: return (bytes, false)
            }
        }
    }

    enum Received {
        case bytes([UInt8])
        case closed
        case timedOut
    }

    /// The next bytes `socket` gives, waiting (in `poll`) no later than `end`; nil once it is
    /// closed or the time is up.
    static func receive(_ socket: Int32, until end: Date) -> [UInt8]? {
        if case .bytes(let more) = receiveOrClose(socket, until: end) { return more }
        return nil
    }

    static func receiveOrClose(_ socket: Int32, until end: Date) -> Received {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = end.timeIntervalSinceNow
            guard left > 0 else { return .timedOut }
            var watch = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return ready == 0 ? .timedOut : .closed }
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n > 0 { return .bytes(Array(buffer[0..<n])) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            // 0: the peer's end of file; below 0: a reset, or the socket is gone.
            return .closed
        }
    }
}
