import Foundation
import Hummingbird
import Logging
import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderPreview
import NIOCore

/// `medrender serve`: the preset library and renders over HTTP, on Hummingbird. A render streams
/// as it is encoded, with the same bytes the command line writes for the same options.
public struct MedrenderService: Sendable {
    public struct Settings: Sendable {
        public var host = "127.0.0.1"
        /// 0 takes a free port (the one taken is handed to `onListening`).
        public var port = 8080
        public var library: PresetLibrary
        /// Renders at once; more wait in the queue.
        public var maximumRenders = ProcessInfo.processInfo.activeProcessorCount
        /// Renders that may wait for a place; beyond it, 503 with Retry-After.
        public var maximumQueued = 16

        public init(library: PresetLibrary) { self.library = library }
    }

    public let settings: Settings
    let gate: RenderGate
    let sounds = SoundCache()
    let loudness = LoudnessCache()

    public init(settings: Settings) {
        self.settings = settings
        gate = RenderGate(limit: settings.maximumRenders, queueLimit: settings.maximumQueued)
    }

    /// The HTTP status for an error's category: the request's fault is 4xx, ours 5xx.
    static func status(for category: ErrorCategory) -> HTTPResponse.Status {
        switch category {
        case .usage, .badData: .badRequest
        case .missingInput: .notFound
        case .cannotCreate, .io, .internal: .internalServerError
        }
    }

    /// An error as the response: its one line, as the command line gives it, in plain text.
    static func errorResponse(_ error: any Error) -> Response {
        let category = (error as? any DiagnosedError)?.category ?? .internal
        let text = "\((error as? any DiagnosedError)?.description ?? "\(error)")\n"
        return Response(status: status(for: category), headers: [.contentType: "text/plain; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Runs until the task is cancelled or the process is asked to stop (SIGINT, SIGTERM).
    public func run(logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let router = Router()
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.get("/presets") { _, _ in try self.presets() }
        router.get("/presets/:name") { _, context in
            try self.preset(named: context.parameters.get("name") ?? "")
        }
        router.get("/render") { request, _ in await self.render(request) }
        router.get("/cues") { request, _ in self.cues(request) }
        router.get("/preview") { request, _ in self.preview(request) }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "medrender"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService()
    }

    /// A preset as `GET /presets` lists it.
    struct PresetEntry: Codable {
        var name: String
        var description: String
        var pattern: String
        var minutes: Double?
        var cycles: Int?
    }

    static func entry(name: String, session: Session) -> PresetEntry {
        var entry = PresetEntry(name: name, description: session.description,
                                pattern: session.segments.map { $0.pattern.description }.joined(separator: " → "))
        switch session.defaultLength {
        case .duration(let t): entry.minutes = Double(t.milliseconds) / 60000
        case .cycles(let n): entry.cycles = n
        }
        return entry
    }

    func presets() throws -> Response {
        var entries: [PresetEntry] = []
        for file in settings.library.presetFiles() {
            // A preset that does not decode is left out here; GET /presets/NAME says what is wrong with it.
            guard let session = try? PresetDecoder.load(path: file) else { continue }
            entries.append(Self.entry(name: URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent, session: session))
        }
        return try Self.json(entries)
    }

    /// A preset's settings: its summary and the preset as written.
    struct PresetDetail: Codable {
        var preset: PresetEntry
        var yaml: String
    }

    func preset(named name: String) throws -> Response {
        do {
            guard !name.contains("/") else {
                throw RenderError("'\(name)': name a preset of the library (GET /presets lists them)", category: .usage)
            }
            let file = try settings.library.presetPath(name)
            let session = try PresetDecoder.load(path: file)
            let yaml = try String(contentsOfFile: file, encoding: .utf8)
            return try Self.json(PresetDetail(preset: Self.entry(name: name, session: session), yaml: yaml))
        } catch {
            return Self.errorResponse(error)
        }
    }

    /// The request's query as (name, value) pairs, percent-decoded.
    static func query(_ request: Request) -> [(String, String)] {
        guard let query = request.uri.query, !query.isEmpty else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The job a query asks for: the command line's checks, the preset from the library, its sounds.
    func job(for request: Request) throws -> (RenderJob, OutputFormat) {
        let parameters = try QueryParameters.parse(Self.query(request))
        let (renderRequest, _) = try parameters.request(library: settings.library, output: "-")
        var job = try renderRequest.job()
        job.soundCache = sounds
        job.loudnessCache = loudness
        return (job, renderRequest.format)
    }

    static func contentType(_ format: OutputFormat) -> String {
        switch format {
        case .ogg: "audio/ogg"
        case .wav: "audio/wav"
        case .flac: "audio/flac"
        case .opus: "audio/ogg; codecs=opus"
        case .mp3: "audio/mpeg"
        }
    }

    func render(_ request: Request) async -> Response {
        let job: RenderJob, format: OutputFormat
        do {
            (job, format) = try self.job(for: request)
            _ = try job.schedulePlan()
        } catch {
            return Self.errorResponse(error)
        }
        guard await gate.enter() else {
            return Response(status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "5"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "every render place is taken and the queue is full; try again in a few seconds\n")))
        }
        let gate = self.gate
        let chunks = job.chunks(completion: { _ in Task { await gate.leave() } })
        let name = "\(job.session.name).\(format.fileExtension)"
        return Response(
            status: .ok,
            headers: [.contentType: Self.contentType(format), .contentDisposition: "inline; filename=\"\(name)\""],
            body: ResponseBody { writer in
                // The iterator stops the render when this ends early (the client went away).
                for try await chunk in chunks {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            })
    }

    func cues(_ request: Request) -> Response {
        do {
            var pairs = Self.query(request)
            let sheet = pairs.first { $0.0 == "sheet" }?.1 ?? "json"
            pairs.removeAll { $0.0 == "sheet" }
            guard sheet == "json" || sheet == "vtt" else {
                throw RenderError("sheet=\(sheet): the cue sheet is json or vtt", category: .usage)
            }
            let parameters = try QueryParameters.parse(pairs)
            let (renderRequest, _) = try parameters.request(library: settings.library, output: "-")
            var job = try renderRequest.job()
            job.soundCache = sounds
            // The plan a render would make, sounds and all: the same frames as the audio.
            let plan = try job.plan()
            let text = sheet == "json" ? CueSheetWriter.json(plan) : CueSheetWriter.vtt(plan)
            return Response(status: .ok, headers: [.contentType: sheet == "json" ? "application/json" : "text/vtt; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        } catch {
            return Self.errorResponse(error)
        }
    }
}

extension MedrenderService {
    /// The preview page of a session: the command line's page, its audio the `/render` of the same
    /// query (so the player streams the render), its timeline the plan a render makes.
    func preview(_ request: Request) -> Response {
        do {
            let (job, format) = try self.job(for: request)
            let plan = try job.plan()
            let timeline = SessionTimeline(plan: plan, title: job.session.name)
            let query = request.uri.query ?? ""
            let subtitle = [job.session.name, job.session.segments.map { $0.pattern.description }.joined(separator: " → "),
                            "\(plan.schedule.cycleCount) cycles", format.fileExtension].joined(separator: " · ")
            let html = PreviewPage(timeline: timeline, audio: .url("/render?\(query)"), subtitle: subtitle).html
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        } catch {
            return Self.errorResponse(error)
        }
    }
}

/// One log line per request: method, path and query, status, and the time to the response's head.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            logger.info("\(request.method) \(request.uri) failed: \(error)")
            throw error
        }
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method) \(request.uri) \(response.status.code) \(String(format: "%.1f", ms)) ms")
        return response
    }
}
