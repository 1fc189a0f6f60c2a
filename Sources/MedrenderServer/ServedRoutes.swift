import HTTPTypes
import Hummingbird
import MedrenderIO
import MedrenderPreview

/// A route of the server, declared once: its path as the metrics name it, the methods it answers,
/// whether it runs work or changes state (then a page of another origin may not ask for it),
/// whether it asks for a key when the server has keys, and its answer. The router, the front door
/// (404, 405, keys, origins), the metrics and the 404's list all read `all`.
struct ServedRoute: Sendable, Equatable {
    /// The answer to a request: `head` for a HEAD (the GET's status and headers, no body).
    typealias Answer = @Sendable (MedrenderService, Request, BasicRequestContext, _ head: Bool) async throws -> Response

    /// The path, with `NAME` or `ID` standing for one path segment.
    let path: String
    /// `POST`, or `GET` and `HEAD`.
    let takesPost: Bool
    /// Renders, plans, synthesizes or saves: refused to pages of other origins.
    let works: Bool
    /// Asks for a key when the server has keys.
    let keyed: Bool
    /// A GET route that answers HEAD too (not one whose GET starts work for a stream).
    let takesHead: Bool
    let answer: Answer

    init(_ path: String, post: Bool = false, head: Bool = true, works: Bool, keyed: Bool = true, answer: @escaping Answer) {
        self.path = path
        self.takesPost = post
        self.takesHead = !post && head
        self.works = works
        self.keyed = keyed
        self.answer = answer
    }

    static func == (a: ServedRoute, b: ServedRoute) -> Bool { a.path == b.path }

    /// The path as the router takes it: `NAME` and `ID` as the parameters `:name` and `:id`.
    var routerPath: RouterPath {
        RouterPath(path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment == "NAME" || segment == "ID" ? ":" + segment.lowercased() : String(segment)
        }.joined(separator: "/"))
    }

    /// The methods it answers, as `Allow` lists them.
    var allowed: String { takesPost ? "POST" : takesHead ? "GET, HEAD" : "GET" }

    /// Whether `method` is one it answers.
    func answers(_ method: HTTPRequest.Method) -> Bool {
        takesPost ? method == .post : (method == .get || (takesHead && method == .head))
    }

    /// Every route, once.
    static let all: [ServedRoute] = [
        // Presets are read and decoded on a thread of their own, never on a task of the server.
        ServedRoute("/presets", works: false) { service, _, _, head in
            MedrenderService.headOnly(try await BlockingWork.run("medrender presets") { try service.presets() }, head)
        },
        ServedRoute("/presets/NAME", works: false) { service, _, context, head in
            let name = context.parameters.get("name") ?? ""
            return MedrenderService.headOnly(try await BlockingWork.run("medrender preset") { try service.preset(named: name) }, head)
        },
        ServedRoute("/render", works: true) { service, request, _, head in try await service.render(request, head: head) },
        ServedRoute("/cues", works: true) { service, request, _, head in MedrenderService.headOnly(try await service.cues(request), head) },
        ServedRoute("/preview", works: true) { service, request, _, head in
            MedrenderService.headOnly(try await service.preview(request), head)
        },
        ServedRoute("/healthz", works: false, keyed: false) { _, _, _, head in MedrenderService.headOnly(MedrenderService.text(.ok, "ok"), head) },
        ServedRoute("/metrics", works: false) { service, _, _, head in MedrenderService.headOnly(await service.metricsResponse(), head) },
        ServedRoute("/studio", works: false) { service, _, _, head in MedrenderService.headOnly(await service.studioPage(), head) },
        ServedRoute(StudioPage.script.path, works: false) { _, _, _, head in MedrenderService.headOnly(MedrenderService.studioFile(StudioPage.script), head) },
        ServedRoute(StudioPage.style.path, works: false) { _, _, _, head in MedrenderService.headOnly(MedrenderService.studioFile(StudioPage.style), head) },
        ServedRoute("/studio/plan", post: true, works: true) { service, request, _, _ in try await service.studioPlan(request) },
        ServedRoute("/studio/save", post: true, works: true) { service, request, _, _ in try await service.studioSave(request) },
        ServedRoute("/studio/listen", post: true, works: true) { service, request, _, _ in try await service.studioTake(request) },
        ServedRoute("/studio/listen/ID", head: false, works: true) { service, request, context, _ in
            try await service.studioListen(request, id: context.parameters.get("id") ?? "")
        },
        ServedRoute("/studio/cue", post: true, works: true) { service, request, _, _ in try await service.studioCue(request) },
        ServedRoute("/studio/render/ID", works: true) { service, request, context, head in
            try await service.studioRender(request, id: context.parameters.get("id") ?? "", head: head)
        },
        ServedRoute("/video", works: true) { service, request, _, head in try await service.video(request, head: head) },
        ServedRoute("/feed.xml", works: true) { service, request, _, head in try await service.feed(request, head: head) },
    ]

    /// Registers every route of `all` on `router`, answered by `service`.
    static func register(on router: Router<BasicRequestContext>, service: MedrenderService) {
        for route in all {
            if route.takesPost {
                router.post(route.routerPath) { request, context in try await route.answer(service, request, context, false) }
            } else {
                router.get(route.routerPath) { request, context in try await route.answer(service, request, context, false) }
                if route.takesHead {
                    router.head(route.routerPath) { request, context in try await route.answer(service, request, context, true) }
                }
            }
        }
    }

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
