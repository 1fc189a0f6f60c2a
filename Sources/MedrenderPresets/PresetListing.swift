import Foundation
import MedrenderCore

/// A preset as `medrender presets` and `GET /presets` list it: its name (the file's, without the
/// extension), its pattern (a ramp by where it starts and where it goes, `4-0-4-0 to 4-0-8-0`; a
/// chain's segments joined by arrows), its default length and what it is.
public struct PresetListing: Codable, Sendable, Hashable {
    public var name: String
    public var pattern: String
    public var minutes: Double?
    public var cycles: Int?
    public var description: String
    /// `stock`, or the folder of the teacher's library the preset comes from; nil where not said.
    public var origin: String?

    /// The listing of `session`, decoded from `file`.
    public init(session: Session, file: String, origin: String? = nil) {
        name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        pattern = session.segments.map { segment in
            segment.ramp.map { "\(segment.pattern) to \($0.target)" } ?? segment.pattern.description
        }.joined(separator: " → ")
        description = session.description
        self.origin = origin
        switch session.defaultLength {
        case .duration(let t): minutes = Double(t.milliseconds) / 60000
        case .cycles(let n): cycles = n
        }
    }
}
