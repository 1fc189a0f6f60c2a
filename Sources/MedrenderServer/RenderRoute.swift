import Foundation
import HTTPTypes
import Hummingbird
import Medrender
import MedrenderCore
import MedrenderIO
import NIOCore
import Synchronization

/// `GET /render` (and `HEAD`): from the render cache when the render is there, else rendered into
/// it (or joined, when the same render is under way) and streamed as it grows. Media players'
/// HTTP: `Content-Length` when known, `Range` and `206`, `ETag` and `304`, `Cache-Control`.
extension MedrenderService {
    func render(_ request: Request, head: Bool) async throws -> Response {
        let (job, format, identity, fit) = try await self.job(for: Self.options(request), request: request)
        return try await serveRender(request, head: head, job: job, format: format, identity: identity, fit: fit)
    }

    /// Whether the request's `If-None-Match` names the answer whose ETag is `identity` (or any).
    static func matches(_ request: Request, identity: String) -> Bool {
        guard let match = request.headers[.ifNoneMatch] else { return false }
        let names = ["\"\(identity)\"", "W/\"\(identity)\"", "*"]
        return match.split(separator: ",").contains { names.contains($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A render known by its identity, from the cache or rendered into it (the studio's downloads
    /// come here too, as an `attachment`).
    func serveRender(_ request: Request, head: Bool, job: RenderJob, format: OutputFormat, identity: String,
                     fit: [String] = [], disposition: String = "inline") async throws -> Response {
        let headers = Self.renderHeaders(job: job, format: format, identity: identity, fit: fit, disposition: disposition)
        if Self.matches(request, identity: identity) { return Response(status: .notModified, headers: headers, body: ResponseBody()) }
        let ext = format.fileExtension
        if let entry = cache.entry(key: identity, ext: ext) {
            let fd = open(entry.path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                metrics.hit()
                return try fileResponse(fd: fd, length: entry.length, request: request, head: head, headers: headers, done: {})
            }
        }
        metrics.miss()
        let largest = Self.largestBytes(job, format: format)
        let (flight, isNew) = await flights.join(identity) { makeFlight(key: identity, ext: ext, largestBytes: largest) }
        if isNew { start(flight, job: job, ext: ext, client: client(of: request)) } else { metrics.joined() }

        // A client that leaves while it waits (for the first bytes of a FLAC, MP3 or Opus, which
        // come when the render is done; for pass 1 of an OGG) is seen leaving, and its reader goes:
        // the last reader to go stops the render.
        let gone = Departure()
        let connections = self.connections
        let connection = request.headers[.medrenderConnection].flatMap { UInt64($0) }
        let watch = connection.map { id in
            connections.watch(id) {
                gone.leave()
                flight.wake()
            }
        }
        @Sendable func leave() {
            if let connection, let watch { connections.unwatch(connection, token: watch) }
            flight.removeReader()
        }

        // The answer's status waits for the first bytes (or the render's end): an error known
        // before anything is written is answered as such.
        var (written, state) = await Self.waitWhileRunning(flight, from: flight.snapshot, gone: gone, forFirstBytesOnly: true)
        if gone.hasLeft {
            leave()
            return Self.text(.serviceUnavailable, "the client went away")
        }
        if case .failed(let error) = state, written == 0 {
            leave()
            throw error
        }
        // A HEAD, or any range (a media player's first request is `bytes=0-`), waits for the whole
        // file: its length is known then, which a player needs to show a duration and to seek (a
        // stream of unknown length is live to it). A plain GET streams as the render goes, unless
        // every byte is written already: then the file is a moment away (its flush, the cache),
        // and it is answered whole, with its length (a player that read the stream to its last
        // page and came back found a live stream of unknown length there).
        if head || request.headers[.range] != nil || flight.isWritten {
            (written, state) = await Self.waitWhileRunning(flight, from: (written, state), gone: gone, forFirstBytesOnly: false)
            if gone.hasLeft {
                leave()
                return Self.text(.serviceUnavailable, "the client went away")
            }
        }
        return try answer(flight, state: state, request: request, head: head, headers: headers, gone: gone, leave: leave)
    }

    /// The answer once the flight is in `state`: a failure thrown, a finished render's file whole,
    /// or a running render's file streamed as it grows. `leave` is called once the flight's file is
    /// no longer read (at once, when the answer needs no more of it).
    private func answer(_ flight: RenderFlight, state: RenderFlight.State, request: Request, head: Bool, headers: HTTPFields,
                        gone: Departure, leave: @escaping @Sendable () -> Void) throws -> Response {
        var state = state, headers = headers
        var opened: Int32 = -1
        answer: while true {
            switch state {
            case .failed(let error):
                leave()
                throw error
            case .finished(let path, let length):
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                leave()
                guard fd >= 0 else { throw RenderError("the render's file cannot be read back", category: .io) }
                return try fileResponse(fd: fd, length: length, request: request, head: head, headers: headers, done: {})
            case .finishedInMemory(let length):
                // The reader stays until it is sent: the file's start is removed when the last goes.
                let fd = open(flight.writingPath, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    leave()
                    throw RenderError("the render's file cannot be read back", category: .io)
                }
                return try fileResponse(fd: fd, length: length, request: request, head: head, headers: headers, done: leave,
                                    read: { try flight.read(fd, at: $0, count: $1) })
            case .running:
                opened = open(flight.writingPath, O_RDONLY | O_CLOEXEC)
                if opened >= 0 { break answer }
                // The render may have ended, and its file gone into the cache under its own name,
                // between the look above and the open: look again, and serve it from there.
                let now = flight.snapshot.state
                if case .running = now {
                    leave()
                    throw RenderError("the render's file cannot be read back", category: .io)
                }
                state = now
            }
        }
        let fd = opened
        if let length = flight.announcedLength { headers[.contentLength] = "\(length)" }
        return Response(status: .ok, headers: headers, body: Self.growingBody(fd: fd, flight: flight, gone: gone, metrics: metrics, done: leave))
    }

    /// The headers of a render's answer: its type, its file name (`disposition` `inline` or
    /// `attachment`), its ETag (`identity`), a year's caching, ranges, and what a fit changed.
    static func renderHeaders(job: RenderJob, format: OutputFormat, identity: String, fit: [String], disposition: String) -> HTTPFields {
        var headers: HTTPFields = [
            .contentType: Self.contentType(format),
            .contentDisposition: "\(disposition); filename=\"\(job.session.name).\(format.fileExtension)\"",
            .eTag: "\"\(identity)\"",
            // The same query to the same renderer gives the same bytes.
            .cacheControl: "public, max-age=31536000, immutable",
            .acceptRanges: "bytes",
        ]
        headers.append(contentsOf: Self.fitFields(fit))
        return headers
    }

    /// Waits, from `snapshot`, while the flight's render runs and its client stays: until its first
    /// bytes are written (`forFirstBytesOnly`) or until it ends. Returns the bytes written and the
    /// state then.
    static func waitWhileRunning(_ flight: RenderFlight, from snapshot: (written: Int64, state: RenderFlight.State), gone: Departure,
                                 forFirstBytesOnly: Bool) async -> (written: Int64, state: RenderFlight.State) {
        var (written, state) = snapshot
        while !(forFirstBytesOnly && written > 0), case .running = state, !gone.hasLeft {
            await flight.wait(beyond: written)
            (written, state) = flight.snapshot
        }
        return (written, state)
    }

    /// The body of a render still being written, read from `fd` as it grows and sent until the
    /// render ends (or fails, or its client goes); then `fd` is closed and `done` called.
    static func growingBody(fd: Int32, flight: RenderFlight, gone: Departure, metrics: ServiceMetrics,
                            done: @escaping @Sendable () -> Void) -> ResponseBody {
        ResponseBody { writer in
            defer {
                close(fd)
                done()
            }
            var offset: Int64 = 0
            while true {
                if gone.hasLeft { throw RenderError("the client went away", category: .io) }
                let (written, state) = flight.snapshot
                if offset < written {
                    let buffer = try flight.read(fd, at: offset, count: Int(min(written - offset, 1 << 16)))
                    offset += Int64(buffer.readableBytes)
                    metrics.sent(buffer.readableBytes)
                    try await writer.write(buffer)
                    continue
                }
                switch state {
                case .running: await flight.wait(beyond: offset)
                case .finished, .finishedInMemory: try await writer.finish(nil); return
                case .failed(let error): throw error
                }
            }
        }
    }

    /// The most a render's file can take, and room for headers: 4 bytes a sample for WAV and
    /// FLAC (never more than 32-bit samples); for the lossy formats 64 KiB a second for each
    /// channel, above the highest bitrate any of their encoders reaches (Vorbis at quality 10,
    /// Opus at 510 kbit/s, MP3 at 320).
    static func largestBytes(_ job: RenderJob, format: OutputFormat) -> Int64 {
        guard let outline = try? job.outline() else { return 0 }
        let frames = outline.frames(atRate: job.options.rate), channels = Int64(job.options.channels)
        switch format {
        case .wav, .flac: return frames * channels * 4 + (1 << 20)
        case .ogg, .opus, .mp3: return (frames / Int64(job.options.rate) + 1) * channels * (64 << 10) + (1 << 20)
        }
    }

    /// A new flight for `key`, writing into the cache's folder, or a spool file when the cache
    /// cannot take one: the render may be larger than the cache's bound (`largestBytes`, held as
    /// room in the cache until it ends, so the cache never holds more than its bound), or the
    /// cache cannot make a file or has less room on its disk than the render may need (said once
    /// in the log), so a full cache folder never fails a render half-way.
    func makeFlight(key: String, ext: String, largestBytes: Int64) -> RenderFlight {
        let path = cache.temporaryPath(key: key, ext: ext)
        if let free = cache.freeBytes(), free < largestBytes {
            cache.reportUnwritable("\(free) bytes free, and a render may need up to \(largestBytes)")
        } else if cache.reserve(largestBytes, for: path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { return RenderFlight(key: key, writingPath: path, spooled: false, writeDescriptor: fd) }
            cache.release(path)
            cache.reportUnwritable(String(cString: strerror(errno)))
        }
        let spool = NSTemporaryDirectory() + "/medrender-spool-\(getpid())-\(UUID().uuidString.prefix(8)).\(ext)"
        return RenderFlight(key: key, writingPath: spool, spooled: true,
                            writeDescriptor: open(spool, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600))
    }

    /// Runs the flight's render: its client's share and a render place, the cache's lock on the
    /// key (another server may be rendering it), then the render at full speed into the file.
    func start(_ flight: RenderFlight, job: RenderJob, ext: String, client: String) {
        let gate = self.gate, limits = self.limits, cache = self.cache, flights = self.flights, metrics = self.metrics
        let task = Task {
            let fd = flight.writeDescriptor
            // Closed once: a descriptor closed twice may close another thread's file by then.
            var isOpen = fd >= 0
            func closeOnce() {
                if isOpen { close(fd) }
                isOpen = false
            }
            func fail(_ error: any Error) {
                if fd >= 0 {
                    closeOnce()
                    unlink(flight.writingPath)
                }
                if !flight.spooled { cache.release(flight.writingPath) }
                flight.end(.failed(error))
            }
            defer { Task { await flights.remove(flight) } }
            guard fd >= 0 else {
                return fail(RenderError("cannot create a file for the render in the temporary folder (\(NSTemporaryDirectory())); "
                                        + "free space there or set TMPDIR", category: .cannotCreate))
            }
            if let refusal = await limits.begin(client) {
                return fail(ServeError.limited(refusal.message, retryAfter: refusal.retryAfter))
            }
            defer { Task { await limits.end(client) } }
            let lock = flight.spooled ? nil : await cache.lock(key: flight.key)
            defer { lock?.release() }
            if let entry = cache.entry(key: flight.key, ext: ext) {
                // Another server rendered it meanwhile.
                closeOnce()
                unlink(flight.writingPath)
                cache.release(flight.writingPath)
                return flight.end(.finished(path: entry.path, length: entry.length))
            }
            guard await gate.enter() else { return fail(ServeError.noPlace(clientLeft: Task.isCancelled)) }
            defer { Task { await gate.leave() } }
            guard !Task.isCancelled else { return fail(RenderError("the client went away before the render started", category: .io)) }
            let started = ContinuousClock.now
            do {
                let length = try await Self.render(job, into: flight, fd: fd, cache: cache, metrics: metrics)
                flight.wroteAll()
                let unsynced = flight.isInMemory ? nil : await Self.flush(fd)
                if let unsynced, !flight.spooled {
                    throw RenderError("cannot flush the render to \(flight.writingPath): \(unsynced)", category: .io)
                }
                closeOnce()
                let elapsed = ContinuousClock.now - started
                metrics.rendered(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                try Self.endWritten(flight, length: length, cache: cache, ext: ext)
            } catch {
                fail(error)
            }
        }
        flight.onAbandon { task.cancel() }
    }

    /// Renders `job` into the flight's file `fd` from the render's own thread (`FlightWriter`),
    /// never from the calling task, with its render threads and passes counted in `metrics` (a
    /// render stopped early by its pass); returns how many bytes it wrote.
    static func render(_ job: RenderJob, into flight: RenderFlight, fd: Int32, cache: RenderCache,
                       metrics: ServiceMetrics) async throws -> Int64 {
        // The pass the render is in, so that a render stopped early is counted by its pass.
        let pass = PassSeen()
        metrics.renderThread(from: nil, to: 0)
        let writer = FlightWriter(flight: flight, descriptor: fd, cache: cache)
        let result = await BlockingWork.run("medrender render") { () -> Result<RenderReport, any Error> in
            Result {
                try job.run(to: .sink(writer)) { report in
                    if let old = pass.update(report.pass) { metrics.renderThread(from: old, to: report.pass) }
                }
            }
        }
        if case .failure = result, flight.wasAbandoned { metrics.stopped(pass: pass.value) }
        metrics.renderThread(from: pass.value, to: nil)
        _ = try result.get()
        return writer.length
    }

    /// A render's bytes written into its flight's file as they are encoded, on the render's own
    /// thread; once the disk is full, held in memory (`RenderFlight.spill`). The render stops at its
    /// next block once every reader has left.
    final class FlightWriter: RenderSink {
        let flight: RenderFlight
        let descriptor: Int32
        let cache: RenderCache
        /// The bytes written so far; read once the render has ended.
        private let written = Mutex<Int64>(0)

        init(flight: RenderFlight, descriptor: Int32, cache: RenderCache) {
            self.flight = flight
            self.descriptor = descriptor
            self.cache = cache
        }

        var length: Int64 { written.withLock { $0 } }
        var isStopped: Bool { flight.wasAbandoned }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            let chunk = [UInt8](bytes)
            if flight.isInMemory {
                guard flight.hold(chunk) else { throw MedrenderService.memoryFull(flight) }
            } else {
                do {
                    try FileBytes.writeAll(chunk, to: descriptor, path: flight.writingPath)
                } catch {
                    // The disk filled up (or the file can grow no more): what the file took stays
                    // there, and the render goes on in memory. Said once.
                    var info = stat()
                    guard fstat(descriptor, &info) == 0, flight.spill(chunk, inFile: Int64(info.st_size)) else {
                        throw MedrenderService.memoryFull(flight)
                    }
                    cache.reportUnwritable("\(error); a render went on in memory from byte \(info.st_size)")
                }
            }
            written.withLock { $0 += Int64(chunk.count) }
            flight.advance(chunk)
        }
    }

    /// Flushes the file `fd` to its disk; nil when it is flushed, else why not. The flush waits on
    /// the disk: on a thread of its own, not on the calling task.
    static func flush(_ fd: Int32) async -> String? {
        await BlockingWork.run("medrender cache sync") { () -> String? in
            fsync(fd) == 0 ? nil : String(cString: strerror(errno))
        }
    }

    /// Ends a flight whose `length` bytes are all written: in memory, in its spool file, or in
    /// its file committed to the cache.
    static func endWritten(_ flight: RenderFlight, length: Int64, cache: RenderCache, ext: String) throws {
        if flight.isInMemory {
            flight.end(.finishedInMemory(length: length))
        } else if flight.spooled {
            flight.end(.finished(path: flight.writingPath, length: length))
        } else {
            let entry = try cache.commit(temporary: flight.writingPath, key: flight.key, ext: ext, length: length)
            flight.end(.finished(path: entry.path, length: entry.length))
        }
    }

    /// A render whose disk filled up and whose rest memory cannot hold either.
    static func memoryFull(_ flight: RenderFlight) -> RenderError {
        RenderError("the render's disk filled up and the rest is larger than the \(RenderFlight.memoryTailLimit >> 20) MiB held in memory; "
                    + "free space in the cache folder or ask for a shorter or smaller render", category: .io)
    }

    /// The pass a render reports last (0 before its first report).
    final class PassSeen: Sendable {
        private let pass = Mutex(0)
        var value: Int { pass.withLock { $0 } }

        /// Notes `now`; the pass before it when it changed, else nil.
        func update(_ now: Int) -> Int? {
            pass.withLock { pass in
                guard now != pass else { return nil }
                defer { pass = now }
                return pass
            }
        }
    }

    /// Up to `count` bytes of the file at `offset`.
    static func read(_ fd: Int32, at offset: Int64, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
            max(0, pread(fd, pointer.baseAddress, count, off_t(offset)))
        }
        guard n > 0 else { throw RenderError("the render's file ended early", category: .io) }
        return buffer
    }

    /// A complete file as the answer: the whole of it, or the range asked for (`206`), or `416`.
    /// `read` reads the file's bytes (by default from `fd`).
    func fileResponse(fd: Int32, length: Int64, request: Request, head: Bool, headers: HTTPFields, done: @escaping @Sendable () -> Void,
                      read: (@Sendable (Int64, Int) throws -> ByteBuffer)? = nil) throws -> Response
    {
        let read = read ?? { try Self.read(fd, at: $0, count: $1) }
        var headers = headers
        var status = HTTPResponse.Status.ok
        var first: Int64 = 0, last = length - 1
        if let header = request.headers[.range] {
            switch ByteRange.parse(header, length: length) {
            case .success(let range):
                (first, last) = (range.lowerBound, range.upperBound)
                status = .partialContent
                headers[.contentRange] = "bytes \(first)-\(last)/\(length)"
            case .failure(var refusal):
                close(fd)
                done()
                headers[.contentRange] = "bytes */\(length)"
                headers[.contentType] = nil
                refusal.headers = headers
                throw refusal
            }
        }
        let count = max(0, last - first + 1)
        headers[.contentLength] = "\(count)"
        if head {
            close(fd)
            done()
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let metrics = self.metrics
        let (from, to) = (first, last)
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: Int(count)) { writer in
            defer {
                close(fd)
                done()
            }
            var offset = from
            while offset <= to {
                let buffer = try read(offset, Int(min(to - offset + 1, 1 << 16)))
                offset += Int64(buffer.readableBytes)
                metrics.sent(buffer.readableBytes)
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        })
    }
}
