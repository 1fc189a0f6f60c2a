import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Open connections, shared by every connection's guard; and what waits for one to close (a
/// request that is not sending yet learns so that its client has gone).
// `@unchecked`: the count, the live ids and the watchers are read and written under `lock` only;
// `limit` is a constant.
final class ConnectionCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var open = 0
    let limit: Int
    private var lastID: UInt64 = 0
    private var live: Set<UInt64> = []
    private var watchers: [UInt64: [(token: UInt64, action: @Sendable () -> Void)]] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    var count: Int { lock.withLock { open } }

    /// Counts a new connection; false when it is past the limit.
    func enter() -> Bool {
        lock.withLock {
            open += 1
            return open <= limit
        }
    }

    func leave() { lock.withLock { open -= 1 } }

    /// A new connection's number, live until `closed`.
    func opened() -> UInt64 {
        lock.withLock {
            lastID += 1
            live.insert(lastID)
            return lastID
        }
    }

    /// The connection `id` has ended (or its client closed its side): what waits for it runs.
    func closed(_ id: UInt64) {
        let actions = lock.withLock { () -> [@Sendable () -> Void] in
            live.remove(id)
            return watchers.removeValue(forKey: id)?.map(\.action) ?? []
        }
        for action in actions { action() }
    }

    /// Runs `action` once the connection `id` closes (now, if it has); `unwatch` with the token
    /// returned forgets it.
    func watch(_ id: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        let (token, now) = lock.withLock { () -> (UInt64, Bool) in
            lastID += 1
            guard live.contains(id) else { return (lastID, true) }
            watchers[id, default: []].append((lastID, action))
            return (lastID, false)
        }
        if now { action() }
        return token
    }

    func unwatch(_ id: UInt64, token: UInt64) {
        lock.withLock {
            watchers[id]?.removeAll { $0.token == token }
            if watchers[id]?.isEmpty == true { watchers[id] = nil }
        }
    }
}

extension HTTPField.Name {
    /// Set on each request by `ConnectionGuard` (a client's own value is replaced): its connection's number.
    static let medrenderConnection = HTTPField.Name("medrender-connection")!
    /// Set on each request by `ConnectionGuard`: the client's address, for the per-address limits.
    static let medrenderPeer = HTTPField.Name("medrender-peer")!
}

/// Each connection's guard: past the connection limit, a request gets a clean `503` and the
/// connection is closed; a response whose writes make no progress for `sendTimeout` (a client that
/// stopped reading) is ended. Each request is marked with its connection's number and its client's
/// address (`medrender-connection`, `medrender-peer`), and a connection's end is told to the
/// counter. Sits after HTTP decoding.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let counter: ConnectionCounter
    let sendTimeout: TimeAmount
    let refused: @Sendable () -> Void
    private var admitted = true
    private var counted = false
    private var pendingWrites = 0
    private var lastProgress = NIODeadline.now()
    private var check: Scheduled<Void>?
    private var id: UInt64 = 0

    init(counter: ConnectionCounter, sendTimeout: TimeAmount, refused: @escaping @Sendable () -> Void) {
        self.counter = counter
        self.sendTimeout = sendTimeout
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        id = counter.opened()
        admitted = counter.enter()
        if admitted { scheduleCheck(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted {
            counter.leave()
            counter.closed(id)
        }
        counted = false
        check?.cancel()
        check = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted else {
            if case .head = unwrapInboundIn(data) {
                refused()
                let text = "the server has all the connections it takes; try again in a few seconds\n"
                let head = HTTPResponse(status: .serviceUnavailable, headerFields: [
                    .contentType: "text/plain; charset=utf-8", .contentLength: "\(text.utf8.count)", .retryAfter: "5", .connection: "close",
                ])
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(ByteBuffer(string: text))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            }
            return
        }
        if case .head(var head) = unwrapInboundIn(data) {
            head.headerFields[.medrenderConnection] = "\(id)"
            head.headerFields[.medrenderPeer] = context.channel.remoteAddress?.ipAddress ?? "unknown"
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        counter.closed(id)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side: it asks for nothing more and reads no answer.
        if let event = event as? ChannelEvent, event == .inputClosed { counter.closed(id) }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if pendingWrites == 0 { lastProgress = .now() }
        pendingWrites += 1
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            self.pendingWrites -= 1
            self.lastProgress = .now()
        }
        context.write(data, promise: promise)
    }

    /// Every quarter of the send timeout: a write pending for longer ends the connection.
    private func scheduleCheck(_ context: ChannelHandlerContext) {
        let interval = TimeAmount.nanoseconds(max(sendTimeout.nanoseconds / 4, 1_000_000))
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: interval) {
            if self.pendingWrites > 0, NIODeadline.now() - self.lastProgress > self.sendTimeout {
                context.close(promise: nil)
                return
            }
            self.scheduleCheck(context)
        }
    }
}
