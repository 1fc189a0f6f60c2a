import ArgumentParser
import Foundation
import Logging
import MedrenderIO
import MedrenderPresets
import MedrenderServer
import Synchronization

/// `medrender serve`: the preset library and renders over HTTP.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the preset library and renders over HTTP (GET /presets, /presets/NAME, /render, /cues, /preview, /healthz, /metrics, /studio, /video, /feed.xml).",
        discussion: """
            GET /render takes the render's options as query parameters, named as the options without \
            their dashes (preset, minutes, format, pattern, hold-in, loudness, layers…), renders into the \
            render cache and streams the file as it is written; a repeat, and byte ranges of it, are served \
            from the cache. Bad parameters get 400 with the command line's message, an unknown preset 404, \
            and with every render place and the queue taken, 503 with Retry-After. Each request is logged \
            as one JSON line on standard error.
            """)

    @OptionGroup var libraries: LibraryOptions

    @Option(name: .long, help: "The address to listen on; beyond loopback it needs --api-keys or --allow-anonymous.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on; 0 takes a free one (the line on standard error says which).")
    var port = 8080

    @Option(name: .customLong("max-renders"), help: "Renders at once (default: the number of cores).")
    var maximumRenders: Int?

    @Option(name: .customLong("queue"), help: "Renders that may wait for a place before 503.")
    var maximumQueued = 16

    @Option(name: .customLong("cache-dir"), help: "The render cache's folder (default: medrender-render-cache-UID in the temporary folder).")
    var cacheDirectory: String?

    @Option(name: .customLong("cache-size"), help: "The render cache's bound in MiB; the least recently used renders go first.")
    var cacheMiB = 2048

    @Option(name: .customLong("sound-cache"), help: "Decoded sounds kept in memory, in MiB; the least recently used go first.")
    var soundCacheMiB = 256

    @Option(name: .customLong("max-connections"), help: "Open connections; past it a request gets 503 and its connection is closed.")
    var maximumConnections = 256

    @Option(name: .customLong("max-connections-per-address"),
            help: "Open connections from one client address, idle or not; past it that address gets 503 (raise it behind a reverse proxy).")
    var maximumConnectionsPerAddress = 32

    @Option(name: .customLong("idle-timeout"),
            help: "Seconds a connection may take to send a whole request (from its start or its last answer) before it is closed.")
    var idleTimeout = 30

    @Option(name: .customLong("send-timeout"), help: "Seconds a response may wait on a client that takes no byte of it before it is ended.")
    var sendTimeout = 60

    @Flag(name: .customLong("allow-command-voices"),
          help: "Let presets of the server's own libraries speak with a 'command' voice (a program); a posted preset never may.")
    var allowCommandVoices = false

    @Option(name: .customLong("allow-origin"), help: "An origin (https://app.example) whose pages may drive the server; repeatable.")
    var allowedOrigins: [String] = []

    @Option(name: .customLong("allow-host"), help: "A host name the server is reached by (besides its addresses and localhost); repeatable.")
    var allowedHosts: [String] = []

    @Flag(name: .customLong("allow-query-key"), help: "Take a key in the query (?key=) as well as in 'Authorization: Bearer'.")
    var allowQueryKey = false

    @Option(name: .customLong("api-keys"), help: "A file of keys, one per line (or sha256:HEX of one); requests then need one.")
    var apiKeys: String?

    @Flag(name: .customLong("allow-anonymous"), help: "Serve without keys on an address beyond loopback.")
    var allowAnonymous = false

    @Option(name: .customLong("client-renders"), help: "Renders at once per key (per client address without keys); 0 for no limit.")
    var clientRenders = 0

    @Option(name: .customLong("client-renders-per-minute"), help: "Renders started per minute per key (per client address without keys); 0 for no limit.")
    var clientRendersPerMinute = 0

    @Option(name: .customLong("max-minutes"), help: "The longest session a request may ask for, in minutes.")
    var maximumMinutes: Double?

    @Option(name: .customLong("max-video-megapixels"),
            help: "The largest video made for /video, as width × height × fps × seconds / 10^6 (default: an hour of 720p at 30 fps).")
    var maximumVideoMegapixels: Double = 100_000

    @Option(name: .customLong("shutdown-grace"), help: "Seconds running streams may go on after SIGTERM before they are ended.")
    var shutdownGrace = 20

    @Option(name: .customLong("presets-dir"), help: "The folder the studio (GET /studio) saves presets into; none: saving is off.")
    var presetsDirectory: String?

    @OptionGroup var speech: SpeechOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): give 0 to 65535") }
        if let maximumRenders, maximumRenders < 1 { throw ValidationError("--max-renders \(maximumRenders): give 1 or more") }
        guard maximumQueued >= 0 else { throw ValidationError("--queue \(maximumQueued): give 0 or more") }
        guard cacheMiB >= 0 else { throw ValidationError("--cache-size \(cacheMiB): give 0 or more MiB") }
        guard soundCacheMiB >= 0 else { throw ValidationError("--sound-cache \(soundCacheMiB): give 0 or more MiB") }
        guard maximumConnections >= 1 else { throw ValidationError("--max-connections \(maximumConnections): give 1 or more") }
        guard maximumConnectionsPerAddress >= 1 else {
            throw ValidationError("--max-connections-per-address \(maximumConnectionsPerAddress): give 1 or more")
        }
        for origin in allowedOrigins where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) || origin.dropFirst(8).contains("/") {
            throw ValidationError("--allow-origin \(origin): give an origin as a browser sends it, such as https://app.example or http://127.0.0.1:3000")
        }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout \(idleTimeout): give 1 or more seconds") }
        guard sendTimeout >= 1 else { throw ValidationError("--send-timeout \(sendTimeout): give 1 or more seconds") }
        guard clientRenders >= 0, clientRendersPerMinute >= 0 else { throw ValidationError("--client-renders…: give 0 or more") }
        if let maximumMinutes, !(maximumMinutes > 0) { throw ValidationError("--max-minutes \(maximumMinutes): give more than 0") }
        guard maximumVideoMegapixels > 0 else { throw ValidationError("--max-video-megapixels \(maximumVideoMegapixels): give more than 0") }
        guard shutdownGrace >= 0 else { throw ValidationError("--shutdown-grace \(shutdownGrace): give 0 or more seconds") }
        if let presetsDirectory { _ = try checkedPresetsDirectory(presetsDirectory) }
    }

    @OptionGroup var feedOptions: ServeFeedOptions

    func run() throws {
        let library = libraries.library()
        guard library.isPresent else { throw PresetError(file: "", message: library.absenceMessage, category: .missingInput) }
        let feed: ServedFeed?
        do {
            feed = try feedOptions.served(library: library, folders: libraries.folders)
        } catch {
            throw fail(error)
        }
        var settings = MedrenderService.Settings(library: library)
        settings.feed = feed
        settings.host = host
        settings.port = port
        settings.maximumRenders = maximumRenders ?? ProcessInfo.processInfo.activeProcessorCount
        settings.maximumQueued = maximumQueued
        if let cacheDirectory { settings.cacheFolder = cacheDirectory }
        settings.cacheBytes = Int64(cacheMiB) << 20
        settings.soundCacheBytes = soundCacheMiB << 20
        settings.maximumConnections = maximumConnections
        settings.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        settings.allowCommandVoices = allowCommandVoices
        settings.allowedOrigins = allowedOrigins
        settings.allowedHosts = allowedHosts
        settings.allowQueryKey = allowQueryKey
        settings.idleTimeoutSeconds = idleTimeout
        settings.sendTimeoutSeconds = sendTimeout
        settings.apiKeysFile = apiKeys
        settings.allowAnonymous = allowAnonymous
        settings.clientRenders = clientRenders
        settings.clientRendersPerMinute = clientRendersPerMinute
        settings.maximumMinutes = maximumMinutes
        settings.maximumVideoMegapixels = maximumVideoMegapixels
        settings.shutdownGraceSeconds = shutdownGrace
        settings.speechTimeLimitSeconds = speech.timeLimitSeconds
        settings.presetsDirectory = try presetsDirectory.map(checkedPresetsDirectory)
        // SIGTERM and SIGINT stop the server gracefully (it then exits 0), not at once.
        SignalCleanup.release([SIGTERM, SIGINT])
        let host = self.host
        try runService(settings, logLevel: .info) { port in
            Console.error("medrender: serving the library on http://\(host):\(port)\n")
        }
    }
}

/// Runs the service until it stops, on the command's thread: the one bridge from the command
/// line, which waits, to the service's tasks. Its records go to standard error as JSON lines;
/// `listening` is told the port. Once it has stopped, no program a render started is left
/// running (a line being spoken as the server stops); its error is the command's.
func runService(_ settings: MedrenderService.Settings, logLevel: Logger.Level,
                listening: @escaping @Sendable (Int) -> Void) throws {
    LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
    var logger = Logger(label: "medrender")
    logger.logLevel = logLevel
    let service: MedrenderService
    do {
        service = try MedrenderService(settings: settings, logger: logger)
    } catch {
        throw fail(error)
    }
    let finished = DispatchSemaphore(value: 0)
    let failure = ServeFailure()
    Task {
        do {
            try await service.run(onListening: listening)
        } catch {
            failure.error = error
        }
        finished.signal()
    }
    finished.wait()
    ProcessGroups.endAllForExit()
    if let error = failure.error { throw fail(error) }
}

/// The server's error, handed from its task to the command.
final class ServeFailure: Sendable {
    private let stored = Mutex<(any Error)?>(nil)
    var error: (any Error)? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

/// Log records as one JSON object a line on standard error: time, level, label, message and the
/// record's metadata as fields.
struct JSONLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    private static let lock = NSLock()

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        var fields: [String: String] = ["time": ISO8601DateFormatter().string(from: Date()), "level": level.rawValue,
                                        "label": label, "message": message.description]
        for (key, value) in metadata.merging(extra ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(fields) else { return }
        data.append(UInt8(ascii: "\n"))
        // A log that cannot be written (a closed pipe, a full disk) is no reason to stop serving.
        Self.lock.withLock { _ = try? FileHandle.standardError.write(contentsOf: data) }
    }
}
