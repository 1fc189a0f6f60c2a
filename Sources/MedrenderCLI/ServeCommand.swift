import ArgumentParser
import Foundation
import Logging
import MedrenderPresets
import MedrenderServer

/// `medrender serve`: the preset library and renders over HTTP.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the preset library and renders over HTTP (GET /presets, /presets/NAME, /render, /cues).",
        discussion: """
            GET /render takes the render's options as query parameters, named as the options without \
            their dashes (preset, minutes, format, pattern, hold-in, loudness, layers…) and streams the \
            file as it is encoded. Bad parameters get 400 with the command line's message, an unknown \
            preset 404, and with every render place and the queue taken, 503 with Retry-After.
            """)

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on; 0 takes a free one (the line on standard error says which).")
    var port = 8080

    @Option(name: .customLong("max-renders"), help: "Renders at once (default: the number of cores).")
    var maximumRenders: Int?

    @Option(name: .customLong("queue"), help: "Renders that may wait for a place before 503.")
    var maximumQueued = 16

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): give 0 to 65535") }
        if let maximumRenders, maximumRenders < 1 { throw ValidationError("--max-renders \(maximumRenders): give 1 or more") }
        guard maximumQueued >= 0 else { throw ValidationError("--queue \(maximumQueued): give 0 or more") }
    }

    func run() throws {
        let library = try PresetLibrary.required()
        var settings = MedrenderService.Settings(library: library)
        settings.host = host
        settings.port = port
        settings.maximumRenders = maximumRenders ?? ProcessInfo.processInfo.activeProcessorCount
        settings.maximumQueued = maximumQueued
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "medrender")
        logger.logLevel = .info
        let service = MedrenderService(settings: settings)
        let host = self.host
        let finished = DispatchSemaphore(value: 0)
        let failure = ServeFailure()
        Task {
            do {
                try await service.run(logger: logger) { port in
                    Console.error("medrender: serving \(library.root) on http://\(host):\(port)\n")
                }
            } catch {
                failure.error = error
            }
            finished.signal()
        }
        finished.wait()
        if let error = failure.error { throw fail(error) }
    }
}

/// The server's error, handed from its task to the command.
final class ServeFailure: @unchecked Sendable {
    var error: (any Error)?
}
