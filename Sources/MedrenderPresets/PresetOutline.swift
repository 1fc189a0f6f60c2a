import Foundation
import Yams

/// A preset's YAML as a flat list of its nodes, each with its path, where it starts and how it is
/// written: what the studio's form reads to show a field and to change its value in place.
public enum PresetOutline {
    /// One node: a scalar with its value, or a mapping or list with its style and size.
    public struct Entry: Codable, Equatable, Sendable {
        /// `cues.inhale.gain`, `guide.lines[2].say`, `segments[0].pattern`.
        public var path: String
        /// `scalar`, `mapping` or `list`.
        public var kind: String
        public var value: String?
        /// 1-based line and column of the node's first character.
        public var line: Int
        public var column: Int
        /// A scalar's `plain`, `single`, `double`, `literal` or `folded`; a collection's `block` or `flow`.
        public var style: String
        /// A collection's number of entries.
        public var count: Int?
        /// A scalar in a flow collection (it ends at a `,`, `}` or `]`).
        public var inFlow: Bool?
    }

    /// The entries of `yaml`, or nil when it is not YAML (or not one document).
    public static func entries(_ yaml: String) -> [Entry]? {
        guard let root = try? PresetNode.compose(yaml) else { return nil }
        var out: [Entry] = []
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        walk(root, path: "", inFlow: false, lines: lines, into: &out)
        return out
    }

    /// Whether a collection starting at `mark` is written in flow style (its first character is a
    /// `{` or a `[`): the composed node does not say.
    static func startsFlow(_ mark: Yams.Mark, lines: [[Unicode.Scalar]]) -> Bool {
        guard mark.line >= 1, mark.line <= lines.count else { return false }
        let line = lines[mark.line - 1]
        guard mark.column >= 1, mark.column <= line.count else { return false }
        return line[mark.column - 1] == "{" || line[mark.column - 1] == "["
    }

    static func walk(_ node: Yams.Node, path: String, inFlow: Bool, lines: [[Unicode.Scalar]], into out: inout [Entry]) {
        guard out.count < 5000, let mark = node.mark else { return }
        switch node {
        case .scalar(let scalar):
            let style: String
            switch scalar.style {
            case .singleQuoted: style = "single"
            case .doubleQuoted: style = "double"
            case .literal: style = "literal"
            case .folded: style = "folded"
            default: style = "plain"
            }
            out.append(Entry(path: path, kind: "scalar", value: scalar.string, line: mark.line, column: mark.column, style: style,
                             inFlow: inFlow ? true : nil))
        case .mapping(let mapping):
            let flow = mapping.style == .flow || startsFlow(mark, lines: lines)
            out.append(Entry(path: path, kind: "mapping", line: mark.line, column: mark.column, style: flow ? "flow" : "block",
                             count: mapping.count))
            for (key, value) in mapping {
                guard let name = key.string else { continue }
                walk(value, path: path.isEmpty ? name : "\(path).\(name)", inFlow: inFlow || flow, lines: lines, into: &out)
            }
        case .sequence(let sequence):
            let flow = sequence.style == .flow || startsFlow(mark, lines: lines)
            out.append(Entry(path: path, kind: "list", line: mark.line, column: mark.column, style: flow ? "flow" : "block",
                             count: sequence.count))
            for (index, item) in sequence.enumerated() {
                walk(item, path: "\(path)[\(index)]", inFlow: inFlow || flow, lines: lines, into: &out)
            }
        case .alias:
            break
        }
    }
}
