import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderPreview
import NIOCore
import ServiceLifecycle

/// `medrender serve`: the preset library and renders over HTTP, on Hummingbird. A render is
/// written at full speed into the render cache and streamed from there as it grows, with the same
/// bytes the command line writes for the same options; a repeat, or a range of it, is served from
/// the cache.
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
        /// The render cache's folder (`--cache-dir`).
        public var cacheFolder = NSTemporaryDirectory() + "/medrender-render-cache-\(geteuid())"
        /// The render cache's bound in bytes (`--cache-size`), default 2 GiB.
        public var cacheBytes: Int64 = 2 << 30
        /// Decoded sounds kept in memory, in bytes (`--sound-cache`), default 256 MiB.
        public var soundCacheBytes = 256 << 20
        /// Open connections; past it, a request gets 503 and its connection is closed. Default 256.
        public var maximumConnections = 256
        /// Open connections from one client address (`--max-connections-per-address`), idle or not;
        /// past it, that address's new connections get 503. Default 32: a browser opens 6 to a host.
        /// Behind a reverse proxy every client has the proxy's address: raise it there.
        public var maximumConnectionsPerAddress = 32
        /// Seconds a connection may take to send a whole request (head and body), from its start or
        /// the end of its previous answer, before it is closed: an idle connection, and one that
        /// trickles a request a byte at a time, are both ended by it. Default 30.
        public var idleTimeoutSeconds = 30
        /// Seconds a response may wait on a client that takes none of it before it is ended,
        /// default 60. A client that takes any byte within it is never cut, however slow.
        public var sendTimeoutSeconds = 60
        /// Let presets of the server's own libraries name a `command` voice (a program the server
        /// runs); off by default. A preset posted in a request never may.
        public var allowCommandVoices = false
        /// Origins besides the server's own whose pages may drive it (`--allow-origin`), as
        /// `scheme://host[:port]`.
        public var allowedOrigins: [String] = []
        /// Host names besides IP addresses and `localhost` that requests may name in `Host`
        /// (`--allow-host`): the names a reverse proxy or a DNS name serves it under.
        public var allowedHosts: [String] = []
        /// Take a key in the query (`?key=`) as well as in `Authorization: Bearer`; off by default.
        public var allowQueryKey = false
        /// The keys asked for (`--api-keys`); nil serves anyone.
        public var apiKeysFile: String?
        /// Serve without keys beyond loopback.
        public var allowAnonymous = false
        /// Renders at once per client (a key, or an address without keys); 0 for no limit.
        public var clientRenders = 0
        /// Renders started per minute per client (a key, or an address without keys); 0 for no limit.
        public var clientRendersPerMinute = 0
        /// The longest render served, in minutes (`--max-minutes`); nil for any.
        public var maximumMinutes: Double?
        /// The largest video made, in megapixels painted: width × height × fps × seconds / 10⁶
        /// (`--max-video-megapixels`). Default 100,000: an hour of 720p at 30 fps, 20 minutes of 1080p.
        public var maximumVideoMegapixels: Double = 100_000
        /// Seconds running streams may go on after SIGTERM before they are ended, default 20.
        public var shutdownGraceSeconds = 20
        /// The folder the studio saves presets into (`--presets-dir`); nil saves none.
        public var presetsDirectory: String?
        /// The podcast feed at `/feed.xml` (`--feed URL`); nil gives none.
        public var feed: ServedFeed?
        /// Seconds a speech engine may take to speak one line (`--speech-timeout`), default 120.
        public var speechTimeLimitSeconds = SpeechSynthesizer.defaultTimeLimitSeconds

        public init(library: PresetLibrary) { self.library = library }
    }

    public let settings: Settings
    let gate: RenderGate
    let sounds: SoundCache
    let loudness = LoudnessCache()
    let cache: RenderCache
    let flights = FlightTable()
    let metrics = ServiceMetrics()
    let connections: ConnectionCounter
    let limits: ClientLimits
    let keys: APIKeys?
    let logger: Logger
    let studioTakes = StudioTakes()
    let origins: OriginPolicy
    let grants = MediaGrants()

    public init(settings: Settings, logger: Logger = Logger(label: "medrender")) throws {
        var settings = settings
        // What the studio saves is a preset of the library from then on: listed, opened, rendered.
        settings.library.savedPresets = settings.presetsDirectory
        self.settings = settings
        self.logger = logger
        gate = RenderGate(limit: settings.maximumRenders, queueLimit: settings.maximumQueued)
        sounds = SoundCache(maximumBytes: settings.soundCacheBytes)
        cache = try RenderCache(folder: settings.cacheFolder, maximumBytes: settings.cacheBytes, logger: logger)
        connections = ConnectionCounter(limit: settings.maximumConnections, addressLimit: settings.maximumConnectionsPerAddress)
        limits = ClientLimits(maximumAtOnce: settings.clientRenders, maximumPerMinute: settings.clientRendersPerMinute)
        keys = try settings.apiKeysFile.map { try APIKeys.load(path: $0) }
        origins = OriginPolicy(settings: settings)
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(settings.host) || settings.host.hasPrefix("127.")
        if !loopback, keys == nil, !settings.allowAnonymous {
            throw RenderError("{host} \(settings.host): beyond loopback the server asks for keys; give {api-keys} FILE, "
                + "or {allow-anonymous} to serve anyone", category: .usage)
        }
    }

    /// A one-line plain-text answer.
    static func text(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        ServeError(status, message, headers: headers).response
    }

    /// An error as the response (`ServeError`'s one mapping), the library's folders left out.
    func errorResponse(_ error: any Error) -> Response {
        ServeError(error, libraryRoots: settings.library.roots).response
    }

    /// `value` as the JSON the server answers: sorted keys, indented, a newline at the end.
    static func jsonData(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    static func json(_ value: some Encodable) throws -> Response {
        let data = try jsonData(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The routes' paths, as the 404 lists them.
    static var routes: [String] { ServedRoute.all.map(\.path) }

    /// The server's router: the front door first, then every route of the table (`ServedRoute`).
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: FrontDoor<BasicRequestContext>(service: self))
        ServedRoute.register(on: router, service: self)
        return router
    }

    /// Runs until the task is cancelled or the process is asked to stop (SIGINT, SIGTERM): then it
    /// stops accepting, lets running streams go on for `shutdownGraceSeconds`, and ends them.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        Self.raiseFileLimit()
        let router = self.router()
        let counter = connections, metrics = self.metrics
        let sendTimeout = TimeAmount.seconds(Int64(settings.sendTimeoutSeconds))
        let requestTimeout = TimeAmount.seconds(Int64(settings.idleTimeoutSeconds))
        let app = Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(counter: counter, sendTimeout: sendTimeout, requestTimeout: requestTimeout,
                                                            refused: { metrics.refusedConnection() })],
                idleTimeout: requestTimeout)),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "medrender",
                                 // Past the limit (and a margin for the 503s), connections wait in the backlog: the
                                 // process never runs out of file descriptors.
                                 availableConnectionsDelegate: MaximumAvailableConnections(settings.maximumConnections + 64)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(settings.shutdownGraceSeconds)
        let warming = Task { await self.warmFeed() }
        defer { warming.cancel() }
        try await ServiceGroup(configuration: configuration).run()
        // Renders still running when the grace ended leave no partial file behind.
        cache.removeTemporaries(ofProcess: getpid())
    }

    /// Raises the soft limit on open files to the hard one, so the connection limit, not the
    /// process's file limit, is what turns clients away.
    static func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The response to a HEAD: the GET's status and headers with its length, no body.
    static func headOnly(_ response: Response, _ head: Bool) -> Response {
        guard head else { return response }
        var headers = response.headers
        if let length = response.body.contentLength, headers[.contentLength] == nil { headers[.contentLength] = "\(length)" }
        return Response(status: response.status, headers: headers, body: ResponseBody())
    }

    func metricsResponse() async -> Response {
        let usage = cache.usage()
        let text = metrics.text(running: await gate.running, queued: await gate.queued, cacheEntries: usage.entries, cacheBytes: usage.bytes,
                                soundBytes: sounds.bytes, connections: connections.count)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    func presets() throws -> Response {
        var entries: [PresetListing] = []
        let languages = try settings.library.languages()
        for file in settings.library.presetFiles() {
            // A preset that does not decode is left out here; GET /presets/NAME says what is wrong with it.
            guard let session = try? PresetDecoder.load(path: file, languages: languages) else { continue }
            entries.append(PresetListing(session: session, file: file))
        }
        return try Self.json(entries)
    }

    /// A preset's settings: its summary and the preset as written.
    struct PresetDetail: Codable {
        var preset: PresetListing
        var yaml: String
    }

    func preset(named name: String) throws -> Response {
        let file = try ServedLibrary(settings.library).presetFile(name)
        let session = try PresetDecoder.load(path: file, languages: settings.library.languages())
        let yaml = try String(contentsOfFile: file, encoding: .utf8)
        return try Self.json(PresetDetail(preset: PresetListing(session: session, file: file), yaml: yaml))
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

    /// The query without a key or a grant (`key=`, `grant=`), which are no render options.
    static func options(_ request: Request) -> [(String, String)] {
        query(request).filter { !QuerySecrets.names.contains($0.0.lowercased()) }
    }

    /// Pairs as one query, each name and value percent-encoded: the form grants are given for.
    static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        pairs.map { queryEscaped($0.0) + "=" + queryEscaped($0.1) }.joined(separator: "&")
    }

    /// The job a query asks for: the command line's checks, the preset from the library (by name
    /// only), its sounds and its speech; and the render's identity. The query is read here; the
    /// rest (files read, speech synthesized, the length fitted) is done under the render gate on a
    /// thread of its own (`preparing`). `request` is nil for the server's own work (the feed's
    /// warm-up). `fit` says what fitting a session shorter than its preset changed (`Medrender-Fit`).
    func job(for pairs: [(String, String)], request: Request?) async throws
        -> (job: RenderJob, format: OutputFormat, identity: String, fit: [String])
    {
        let parameters = try QueryParameters.parse(pairs)
        return try await preparing(request) { try self.job(for: parameters) }
    }

    /// The job of `job(for:request:)`, on the thread that prepares it.
    private func job(for parameters: SessionRequest) throws -> (job: RenderJob, format: OutputFormat, identity: String, fit: [String]) {
        let file = try ServedLibrary(settings.library).presetFile(parameters.preset)
        var (renderRequest, _) = try parameters.renderRequest(library: settings.library, destination: .standardOutput)
        renderRequest.speechTimeLimitSeconds = settings.speechTimeLimitSeconds
        // A preset of the server's own library names a program only when the operator allows it.
        try PresetConfinement(library: settings.library, allowsCommandVoices: settings.allowCommandVoices)
            .check(renderRequest.session, presetFile: file, library: settings.library)
        var job = try renderRequest.job()
        job.soundCache = sounds
        job.loudnessCache = loudness
        // The length and the fit from the clock alone: the render plans once, when it starts.
        let outline = try job.outline()
        let minutes = Double(outline.total.milliseconds) / 60_000
        if let maximum = settings.maximumMinutes, minutes > maximum + 1e-9 {
            throw RenderError(String(format: "the session is %.1f minutes; this server renders up to %g minutes; ask for fewer",
                                     minutes, maximum), category: .usage)
        }
        let speech = try GuideSpeech.requests(for: renderRequest.session, origin: renderRequest.presetFile)
        let identity = RenderIdentity.key(parameters: parameters, presetFile: file, job: job, speech: speech)
        return (job, renderRequest.format, identity, outline.fitChanges)
    }

    /// The `Medrender-Fit` header: what fitting a session shorter than its preset changed, one
    /// field line per change, the way the command line's notes say it (in ASCII: `→` as `->`,
    /// other characters beyond ASCII percent-encoded as UTF-8).
    static let fitField = HTTPField.Name("Medrender-Fit")!

    static func fitFields(_ changes: [String]) -> [HTTPField] {
        changes.map { change in
            var value = ""
            for scalar in change.replacingOccurrences(of: "→", with: "->").unicodeScalars {
                if scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "%" {
                    value.unicodeScalars.append(scalar)
                } else {
                    value += String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
                }
            }
            return HTTPField(name: fitField, value: value)
        }
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

    /// The client a request counts against: its key's id, or without keys its address.
    func client(of request: Request) -> String {
        guard keys != nil else { return "address " + (request.headers[.medrenderPeer] ?? "unknown") }
        if case .known(let id) = keyOf(request) { return id }
        return "anonymous"
    }

    /// Holds a render place and the client's share around `body`, and runs it on a thread of its
    /// own (`BlockingWork`): the work of a request that decodes sounds, other than an audio
    /// render (`RenderRoute` gates that itself): the session planned with them (`/cues`,
    /// `/preview`, the studio's plan, a take checked before its render), a studio cue rendered, a
    /// video made (`onRenderPlace`). That work never holds a task of the server, and no more of it
    /// runs at once than renders do; a job is made under `preparing` instead. A request whose
    /// client leaves while it waits in the queue gives its place back.
    func gated<T: Sendable>(_ request: Request, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let client = client(of: request)
        if let refusal = await limits.begin(client) { throw ServeError.limited(refusal.message, retryAfter: refusal.retryAfter) }
        let gate = self.gate
        guard try await untilClientLeaves(request, { await gate.enter() }) else {
            await limits.end(client)
            throw ServeError.noPlace(clientLeft: Task.isCancelled || clientLeft(request))
        }
        let result = await Result { try await BlockingWork.run("medrender request", body) }
        await gate.leave()
        await limits.end(client)
        return try result.get()
    }

    /// Runs `body` under a render place, on a thread of its own, without counting it against the
    /// client's render limits: the job a request asks for, made (a library preset read and
    /// checked, its sounds found, its speech synthesized, the length fitted), so that no more of it
    /// runs at once than renders do and none of it on a task of the server. A request whose client leaves while
    /// it waits gives its place back; `request` nil is the server's own work.
    func preparing<T: Sendable>(_ request: Request?, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let gate = self.gate
        let entered = if let request { try await untilClientLeaves(request, { await gate.enter() }) } else { await gate.enter() }
        guard entered else { throw ServeError.noPlace(clientLeft: request.map(clientLeft) == true || Task.isCancelled) }
        // The place is given back before the answer, so the render that follows finds it free.
        let result = await Result { try await BlockingWork.run("medrender request", body) }
        await gate.leave()
        return try result.get()
    }

    /// Runs `operation` in a task of its own that is cancelled when the request's connection
    /// closes (its client left) or when the awaiting task is.
    func untilClientLeaves<T: Sendable>(_ request: Request, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let id = request.headers[.medrenderConnection].flatMap({ UInt64($0) }) else { return try await operation() }
        let task = Task { try await operation() }
        let token = connections.watch(id) { task.cancel() }
        defer { connections.unwatch(id, token: token) }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Whether the request's connection has closed.
    func clientLeft(_ request: Request) -> Bool {
        guard let id = request.headers[.medrenderConnection].flatMap({ UInt64($0) }) else { return false }
        return !connections.isLive(id)
    }

    func cues(_ request: Request) async throws -> Response {
        var pairs = Self.options(request)
        let sheets = pairs.filter { $0.0 == "sheet" }.map(\.1)
        guard sheets.count <= 1 else { throw ParameterError("sheet", "is given twice; give it once") }
        let sheet = sheets.first ?? "json"
        pairs.removeAll { $0.0 == "sheet" }
        guard ["json", "vtt", "chapters"].contains(sheet) else {
            throw RenderError("sheet=\(sheet): the cue sheet is json, vtt or chapters", category: .usage)
        }
        let (job, _, _, fit) = try await self.job(for: pairs, request: request)
        // The plan a render would make, sounds and all: the same frames as the audio.
        let plan = try await gated(request) { try job.plan() }
        let text: String, type: String
        switch sheet {
        case "vtt": (text, type) = (CueSheetWriter.vtt(plan), "text/vtt; charset=utf-8")
        case "chapters":
            // Podcasting 2.0's JSON chapters, as a build writes them beside its files.
            let chapters = LibraryFeed.chapters(fromCueSheet: Data(CueSheetWriter.json(plan).utf8)) ?? []
            (text, type) = (String(decoding: chapters, as: UTF8.self), "application/json+chapters")
        default: (text, type) = (CueSheetWriter.json(plan), "application/json")
        }
        var headers: HTTPFields = [.contentType: type]
        headers.append(contentsOf: Self.fitFields(fit))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The preview page of a session: the command line's page, its audio the `/render` of the same
    /// query (so the player streams the render), its timeline the plan a render makes.
    func preview(_ request: Request) async throws -> Response {
        let (job, format, _, _) = try await self.job(for: Self.options(request), request: request)
        let plan = try await gated(request) { try job.plan() }
        let timeline = SessionTimeline(plan: plan, title: job.session.name)
        // The page's audio asks for the same render, without the key it came with (a page is
        // kept and shared): a keyed server gives it a grant for that render alone.
        var query = Self.canonicalQuery(Self.options(request))
        if keys != nil, case .known(let id) = keyOf(request) { query += "&grant=" + grants.grant(keyID: id, query: query) }
        let subtitle = [job.session.name, job.session.segments.map { $0.pattern.description }.joined(separator: " → "),
                        "\(plan.schedule.cycleCount) cycles", format.fileExtension].joined(separator: " · ")
        let html = PreviewPage(timeline: timeline, audio: .url("/render?\(query)"), subtitle: subtitle).html
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}

/// The preset library as the service offers it: a preset is a name of `Presets/`, nothing else.
/// A name with a path in it, or one that is not a preset file there, or one whose file resolves
/// outside the folder, gets the same answer as a name that does not exist.
struct ServedLibrary {
    let library: PresetLibrary
    init(_ library: PresetLibrary) { self.library = library }

    func presetFile(_ name: String) throws -> String {
        let names = library.presetNames()
        guard names.contains(name), !name.contains("/"), !name.hasPrefix(".") else { throw notFound(name, names) }
        // The saved presets (`--presets-dir`), a teacher's library (`--library`, `$MEDRENDER_HOME`),
        // then the stock one.
        for presets in library.presetFolders {
            let folder = URL(fileURLWithPath: presets).resolvingSymlinksInPath().path
            for ext in ["yaml", "yml"] {
                let file = "\(presets)/\(name).\(ext)"
                guard FileManager.default.fileExists(atPath: file) else { continue }
                let real = URL(fileURLWithPath: file).resolvingSymlinksInPath()
                guard real.deletingLastPathComponent().path == folder else { throw notFound(name, names) }
                return file
            }
        }
        throw notFound(name, names)
    }

    private func notFound(_ name: String, _ names: [String]) -> RenderError {
        let shown = name.count > 64 ? String(name.prefix(64)) + "…" : name
        var message = "no preset named '\(shown)'"
        if let guess = didYouMean(name, among: names) { message += " (did you mean '\(guess)'?)" }
        return RenderError(message + "; GET /presets lists them (\(names.joined(separator: ", ")))", category: .missingInput)
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing `body`.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
