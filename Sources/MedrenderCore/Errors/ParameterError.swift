/// A request's parameter that cannot be used: which one, the value given, and what is wrong with it.
///
/// The library speaks of fields; each face words them in its own terms: the command line as its
/// options (`--minutes 0 is out of range…`), the service as its query (`minutes=0 is out of
/// range…`). A problem that names another parameter writes it as `{name}`, and each face words it
/// too (`give {minutes} or {cycles}` → `give --minutes or --cycles` / `give minutes or cycles`).
public struct ParameterError: DiagnosedError, Hashable {
    /// The parameter, as both faces spell it without their marks: `minutes`, `hold-in`, `true-peak`.
    public var parameter: String
    /// The value given, as given; nil when the problem is not with a value.
    public var value: String?
    /// What is wrong and how to fix it, in words after the parameter (and value).
    public var problem: String
    public var category: ErrorCategory

    public init(_ parameter: String, value: String? = nil, _ problem: String, category: ErrorCategory = .usage) {
        self.parameter = parameter
        self.value = value
        self.problem = problem
        self.category = category
    }

    /// The command line's wording (what `main` prints).
    public var description: String { worded(for: .commandLine) }

    /// The one-line message as `face` names parameters.
    public func worded(for face: Face) -> String {
        let head: String
        switch face {
        case .commandLine: head = "--\(parameter)" + (value.map { " \($0)" } ?? "")
        case .query: head = parameter + (value.map { "=\($0)" } ?? "")
        }
        let separator = problem.hasPrefix(":") || problem.hasPrefix(";") ? "" : " "
        return head + separator + face.naming(problem)
    }
}
