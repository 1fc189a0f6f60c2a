import Foundation

/// A `Range: bytes=…` header against a file of known length: one range (`a-b`, `a-`, `-n`), as
/// media players ask. Several ranges, reversed or overlapping ones, and ranges past the end are
/// refused with a message (the service answers 416).
enum ByteRange {
    /// The bytes asked for, `first...last`, both within the file.
    static func parse(_ header: String, length: Int64) -> Result<ClosedRange<Int64>, ServeError> {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else {
            return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): only byte ranges are served; ask for 'bytes=FIRST-LAST'"))
        }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(",") else {
            return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): one range at a time is served; ask for each range in a request of its own"))
        }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): not 'bytes=FIRST-LAST'")) }
        let digits = { (s: String) in !s.isEmpty && s.allSatisfy(\.isASCII) && s.allSatisfy(\.isNumber) }
        let first: Int64, last: Int64
        if parts[0].isEmpty {
            // The last n bytes.
            guard digits(parts[1]), let n = Int64(parts[1]), n > 0 else {
                return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): a suffix range asks for 1 or more bytes ('bytes=-N')"))
            }
            first = max(0, length - n)
            last = length - 1
        } else {
            guard digits(parts[0]), let a = Int64(parts[0]) else {
                return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): not 'bytes=FIRST-LAST'"))
            }
            first = a
            if parts[1].isEmpty {
                last = length - 1
            } else {
                guard digits(parts[1]), let b = Int64(parts[1]) else {
                    return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): not 'bytes=FIRST-LAST'"))
                }
                guard b >= a else {
                    return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): the range ends before it starts; give FIRST ≤ LAST"))
                }
                last = min(b, length - 1)
            }
        }
        guard length > 0, first < length, first <= last else {
            return .failure(ServeError(.rangeNotSatisfiable, "Range: \(header): past the end of the \(length)-byte file; start below \(length)"))
        }
        return .success(first...last)
    }
}
