import Foundation
import MedrenderCore
import Yams

/// A YAML node with where it came from, for decoding with errors that point at the line.
struct PresetNode {
    /// The YAML document in `text`, composed without resolving the scalars' tags: a preset reads
    /// every scalar as text and parses its numbers itself. Yams's default resolver compiles
    /// regular expressions (through ICU) the first time it is used, which brings 1.5 MiB of
    /// ICU's pages into every render for nothing.
    static func compose(_ text: String) throws -> Yams.Node? {
        try Yams.compose(yaml: text, .basic)
    }

    let node: Yams.Node
    let file: String
    /// The field's path from the root, such as `pattern.inhale`.
    let path: String

    var line: Int? { node.mark?.line }
    var column: Int? { node.mark?.column }

    func error(_ message: String) -> PresetError {
        PresetError(file: file, field: path, line: line, column: column, message: message)
    }

    func child(_ node: Yams.Node, key: String) -> PresetNode {
        PresetNode(node: node, file: file, path: path.isEmpty ? key : "\(path).\(key)")
    }

    var typeName: String {
        switch node {
        case .scalar(let s): s.string.isEmpty ? "nothing" : "'\(s.string)'"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    /// The mapping's entries, checked against `allowed` keys (unknown keys get a did-you-mean).
    func mapping(allowed: [String]) throws(PresetError) -> [String: PresetNode] {
        guard case .mapping(let mapping) = node else {
            throw error("expected a mapping with keys such as \(allowed.prefix(4).joined(separator: ", ")), found \(typeName)")
        }
        var result: [String: PresetNode] = [:]
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.string else {
                throw PresetError(file: file, field: path, line: keyNode.mark?.line, column: keyNode.mark?.column,
                                  message: "keys must be plain words")
            }
            guard allowed.contains(key) else {
                var message = "unknown key '\(key)'"
                if let guess = didYouMean(key, among: allowed) {
                    message += "; did you mean '\(guess)'? Allowed here: "
                } else {
                    message += "; allowed here: "
                }
                message += allowed.joined(separator: ", ")
                throw PresetError(file: file, field: path.isEmpty ? key : "\(path).\(key)", line: keyNode.mark?.line,
                                  column: keyNode.mark?.column, message: message)
            }
            result[key] = child(valueNode, key: key)
        }
        return result
    }

    func sequence() throws(PresetError) -> [PresetNode] {
        guard case .sequence(let sequence) = node else { throw error("expected a list, found \(typeName)") }
        return sequence.enumerated().map { PresetNode(node: $1, file: file, path: "\(path)[\($0)]") }
    }

    var isNull: Bool {
        if case .scalar(let s) = node { return s.tag.description.hasSuffix(":null") || ["~", "null", ""].contains(s.string) && s.style == .plain }
        return false
    }

    func string() throws(PresetError) -> String {
        guard case .scalar(let scalar) = node else { throw error("expected text, found \(typeName)") }
        return scalar.string
    }

    /// The most bytes a text that becomes a tag may have.
    static let maximumTextBytes = 1024

    /// Text for a tag (description, metadata): at most `maximumTextBytes`, a trailing line break
    /// (as a block scalar ends) dropped.
    func tagText() throws(PresetError) -> String {
        var text = try string()
        while text.hasSuffix("\n") { text.removeLast() }
        guard text.utf8.count <= Self.maximumTextBytes else {
            throw error("is \(text.utf8.count) bytes of text; a tag takes at most \(Self.maximumTextBytes): shorten it")
        }
        return text
    }

    /// A name (the session's, a segment's): one line of at most 200 bytes, as it becomes a file
    /// name, a chapter and a label.
    func name() throws(PresetError) -> String {
        let text = try string()
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw error("contains a control character (a line break or a tab); write the name on one line")
        }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw error("is empty; give a name") }
        guard text.utf8.count <= 200 else { throw error("is \(text.utf8.count) bytes; a name takes at most 200: shorten it") }
        return text
    }

    /// A number within `range`, with `unit` for messages ("" for a plain count).
    func number(in range: ClosedRange<Double>, unit: String) throws(PresetError) -> Double {
        func withUnit(_ text: String) -> String { unit.isEmpty ? text : "\(text) \(unit)" }
        let allowed = withUnit("\(format(range.lowerBound)) to \(format(range.upperBound))")
        guard case .scalar(let scalar) = node else {
            throw error("expected a number\(unit.isEmpty ? "" : " (\(unit))"), found \(typeName)")
        }
        let text = scalar.string.trimmingCharacters(in: .whitespaces)
        // YAML's own spellings (.nan, .inf, 1_000) through Yams, plain numbers through Double.
        guard let value = Double(text) ?? node.float, !text.isEmpty else {
            throw error("expected a number\(unit.isEmpty ? "" : " (\(unit))") from \(format(range.lowerBound)) to \(format(range.upperBound)), found '\(text)'")
        }
        guard value.isFinite else { throw error("'\(text)' is not a finite number; use \(allowed)") }
        guard range.contains(value) else { throw error("\(withUnit(text)) is out of range; use \(allowed)") }
        return value
    }

    /// A whole number within `range`.
    func integer(in range: ClosedRange<Int>, unit: String) throws(PresetError) -> Int {
        let value = try number(in: Double(range.lowerBound)...Double(range.upperBound), unit: unit)
        guard value == value.rounded() else {
            throw error("expected a whole number\(unit.isEmpty ? "" : " of \(unit)"), found \(format(value))")
        }
        return Int(value)
    }

    /// A sound: a name from `Sounds/` or a path, on one line.
    func sound() throws(PresetError) -> SoundRef {
        guard case .scalar(let scalar) = node, !isNull else {
            throw error("expected a sound (a name from Sounds/, or a path to a sound file), found \(isNull ? "nothing" : typeName)")
        }
        let text = scalar.string
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw error("the sound's name is empty") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw error("the sound's name contains a control character (a line break or a tab)")
        }
        return SoundRef(text)
    }

    /// A time in seconds within `range` (seconds), kept to the millisecond.
    func seconds(in range: ClosedRange<Double>) throws(PresetError) -> SessionTime {
        let value = try number(in: range, unit: "s")
        return SessionTime(seconds: value)!
    }

    /// One of `cases`, by raw value.
    func choice<T: RawRepresentable & CaseIterable>(_: T.Type, what: String) throws(PresetError) -> T where T.RawValue == String {
        let text = try string()
        if let value = T(rawValue: text) { return value }
        let names = T.allCases.map(\.rawValue)
        var message = "unknown \(what) '\(text)'"
        if let guess = didYouMean(text, among: names) { message += " (did you mean '\(guess)'?)" }
        throw error(message + "; choose one of: \(names.joined(separator: ", "))")
    }
}

func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}
