/// The last bytes a program wrote to a stream, at most `capacity` of them: a ring that never grows,
/// however much the program writes, so a program that writes gigabytes of messages costs
/// `capacity` bytes of memory.
public struct OutputTail: Sendable {
    /// The most bytes kept.
    public let capacity: Int
    private var ring: [UInt8]
    /// Where the next byte goes in `ring`.
    private var next = 0
    /// Every byte appended, kept or not.
    public private(set) var totalBytes: Int64 = 0

    /// The longest last line `lastLine` gives, in characters; a longer one keeps its end.
    public static let lastLineCharacters = 300

    public init(capacity: Int) {
        precondition(capacity > 0, "a tail keeps at least one byte")
        self.capacity = capacity
        ring = [UInt8](repeating: 0, count: capacity)
    }

    /// Keeps the end of `bytes`, dropping the oldest bytes kept beyond `capacity`.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        totalBytes += Int64(bytes.count)
        // Of more than the ring holds, only the last `capacity` bytes can be kept.
        var rest = bytes.count > capacity ? UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - capacity)...]) : bytes
        while !rest.isEmpty {
            let run = min(rest.count, capacity - next)
            ring.withUnsafeMutableBytes { ring in
                ring.baseAddress!.advanced(by: next).copyMemory(from: rest.baseAddress!, byteCount: run)
            }
            next = (next + run) % capacity
            rest = UnsafeRawBufferPointer(rebasing: rest[run...])
        }
    }

    /// The bytes kept, oldest first.
    public var bytes: [UInt8] {
        guard totalBytes >= Int64(capacity) else { return Array(ring[..<next]) }
        return Array(ring[next...] + ring[..<next])
    }

    /// The last line with anything but spaces in it, without the spaces around it (its end only, when
    /// longer than `lastLineCharacters`); empty when there is none.
    public var lastLine: String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let found = text.split(whereSeparator: \.isNewline).last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return "" }
        let start = found.firstIndex { !$0.isWhitespace }!, end = found.lastIndex { !$0.isWhitespace }!
        let line = found[start...end]
        return line.count > Self.lastLineCharacters ? "…" + String(line.suffix(Self.lastLineCharacters)) : String(line)
    }
}
