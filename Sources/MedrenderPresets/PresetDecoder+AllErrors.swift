import Foundation
import MedrenderCore

extension PresetDecoder {
    /// Every error of a preset a reader can fix one by one, in the order the decoder meets them:
    /// the first error, then, with the line it is on left out (or, for `pattern`, a placeholder
    /// pattern put there), the next, and so on. The lines keep their numbers. It stops at an error
    /// with no line, at a repeat, at `limit` errors, or when leaving a line out breaks the YAML
    /// itself (that error would be of its own making).
    public static func allErrors(_ text: String, file: String, defaultName: String, limit: Int = 20,
                                 languages: LanguageCatalog = .stock) -> [PresetError] {
        var lines = text.components(separatedBy: "\n")
        var found: [PresetError] = []
        var seen = Set<String>()
        var current = text
        var rounds = 0
        while found.count < limit, rounds < 4 * limit {
            rounds += 1
            let error: PresetError
            do {
                _ = try decode(current, file: file, defaultName: defaultName, languages: languages)
                break
            } catch let caught {
                error = caught
            }
            let key = "\(error.line ?? 0):\(error.field):\(error.message)"
            var madeHere = false
            if !found.isEmpty {
                // An error of the text as changed here, not as written: stop, or, for a key whose
                // lines below were all left out, leave it out too and go on.
                if seen.contains(key) || error.message.contains("YAML") { break }
                guard let line = error.line, line >= 1, line <= lines.count else { break }
                if lines[line - 1].trimmingCharacters(in: .whitespaces).isEmpty { break }
                if emptied(lines, at: line - 1) { madeHere = true }
            }
            if !madeHere {
                found.append(error)
                seen.insert(key)
            }
            guard let line = error.line, line >= 1, line <= lines.count else { break }
            let original = lines[line - 1]
            if original.hasPrefix("pattern:") {
                lines[line - 1] = "pattern: 4-4-4-4"
            } else {
                // A list item's dash stays, so the list keeps its shape: `- ` with nothing is an
                // empty item, which the decoder names; so the item goes, and a lone dash is not left.
                lines[line - 1] = ""
            }
            let next = lines.joined(separator: "\n")
            if next == current { break }
            current = next
        }
        return found
    }

    /// Whether the line at `index` is a key (`name:` and nothing after it) with no lines under it.
    static func emptied(_ lines: [String], at index: Int) -> Bool {
        let line = lines[index]
        guard line.trimmingCharacters(in: .whitespaces).hasSuffix(":") else { return false }
        let indent = line.prefix { $0 == " " || $0 == "-" }.count
        for next in lines[(index + 1)...] where !next.trimmingCharacters(in: .whitespaces).isEmpty {
            return next.prefix { $0 == " " }.count <= indent
        }
        return true
    }
}
