import HTTPTypes

/// A route of the server as the front door knows it: its path as the metrics name it, the
/// methods it answers, whether it runs work or changes state (then a page of another origin may
/// not ask for it), and whether it asks for a key when the server has keys.
struct ServedRoute: Sendable, Equatable {
    /// The path, with `NAME` or `ID` standing for one path segment.
    let path: String
    /// `POST`, or `GET` and `HEAD`.
    let takesPost: Bool
    /// Renders, plans, synthesizes or saves: refused to pages of other origins.
    let works: Bool
    /// Asks for a key when the server has keys.
    let keyed: Bool

    init(_ path: String, post: Bool = false, works: Bool, keyed: Bool = true) {
        self.path = path
        self.takesPost = post
        self.works = works
        self.keyed = keyed
    }

    /// The methods it answers, as `Allow` lists them.
    var allowed: String { takesPost ? "POST" : "GET, HEAD" }

    /// Whether `method` is one it answers.
    func answers(_ method: HTTPRequest.Method) -> Bool {
        takesPost ? method == .post : (method == .get || method == .head)
    }

    /// Every route, once: the front door (404, 405, keys, origins), the metrics and the 404's
    /// list read this table.
    static let all: [ServedRoute] = [
        ServedRoute("/presets", works: false),
        ServedRoute("/presets/NAME", works: false),
        ServedRoute("/render", works: true),
        ServedRoute("/cues", works: true),
        ServedRoute("/preview", works: true),
        ServedRoute("/healthz", works: false, keyed: false),
        ServedRoute("/metrics", works: false),
        ServedRoute("/studio", works: false),
        ServedRoute("/studio/studio.js", works: false),
        ServedRoute("/studio/studio.css", works: false),
        ServedRoute("/studio/plan", post: true, works: true),
        ServedRoute("/studio/save", post: true, works: true),
        ServedRoute("/studio/listen", post: true, works: true),
        ServedRoute("/studio/listen/ID", works: true),
        ServedRoute("/studio/cue", post: true, works: true),
        ServedRoute("/studio/render/ID", works: true),
        ServedRoute("/video", works: true),
        ServedRoute("/feed.xml", works: true),
    ]

    /// The route that answers `path`, or nil.
    static func matching(_ path: String) -> ServedRoute? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return all.first { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false)
            guard pattern.count == segments.count else { return false }
            return zip(pattern, segments).allSatisfy { want, have in
                (want == "NAME" || want == "ID") ? !have.isEmpty : want == have
            }
        }
    }
}
