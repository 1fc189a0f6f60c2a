import Foundation

/// A spoken line's text cut at its `[pause N]` marks: the phrases the voice speaks, each followed
/// by its silence (seconds, 0…60) before the next. The caption keeps the words whole, without the marks.
public struct SpokenPhrases: Hashable, Sendable {
    public struct Phrase: Hashable, Sendable {
        public var text: String
        /// The silence after it, before the next phrase (zero for the last).
        public var pauseAfter: SessionTime
    }

    public var phrases: [Phrase]

    /// The longest silence a `[pause N]` may ask for, in seconds.
    public static let longestPause = 60.0

    /// What is wrong with a line's marks, said so that the author can fix it.
    public struct Problem: Error, Hashable, Sendable {
        public var message: String
    }

    /// The phrases of `text`. A mark is `[pause N]` with N in seconds (`[pause 2]`, `[pause 1.5]`);
    /// it goes between words, not at either end.
    public init(_ text: String) throws(Problem) {
        var phrases: [Phrase] = []
        var rest = Substring(text)
        var current = ""
        while let open = rest.firstIndex(of: "[") {
            current += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "]") else {
                throw Problem(message: "has a '[' with no ']'; write a pause as [pause 2] (seconds)")
            }
            let mark = rest[rest.index(after: open)..<close].split(separator: " ", omittingEmptySubsequences: true)
            guard mark.count == 2, mark[0] == "pause", let seconds = Double(mark[1]), seconds.isFinite,
                  seconds > 0, seconds <= Self.longestPause else {
                throw Problem(message: "has '\(rest[open...close])', which is not a pause; write [pause N] with N from 0.001 to \(Int(Self.longestPause)) seconds")
            }
            let spoken = current.trimmingCharacters(in: .whitespaces)
            guard !spoken.isEmpty else {
                throw Problem(message: "has a pause with no words before it; a [pause N] goes between two phrases")
            }
            phrases.append(Phrase(text: spoken, pauseAfter: SessionTime(seconds: seconds)!))
            current = ""
            rest = rest[rest.index(after: close)...]
        }
        current += rest
        let last = current.trimmingCharacters(in: .whitespaces)
        guard !last.isEmpty else {
            throw Problem(message: "ends with a pause; a [pause N] goes between two phrases (a line's rest: goes after it)")
        }
        phrases.append(Phrase(text: last, pauseAfter: .zero))
        self.phrases = phrases
    }

    /// The words as a caption shows them: the phrases joined by a space.
    public var caption: String { phrases.map(\.text).joined(separator: " ") }

    /// The caption of `text`, or `text` itself when its marks do not parse.
    public static func caption(of text: String) -> String {
        guard text.contains("[") else { return text }
        return (try? SpokenPhrases(text))?.caption ?? text
    }

    /// The number of words in `text`: runs of letters or digits, as a listener counts them.
    public static func wordCount(_ text: String) -> Int {
        text.split(whereSeparator: { $0.isWhitespace }).filter { $0.contains { $0.isLetter || $0.isNumber } }.count
    }
}
