import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Open connections, shared by every connection's guard.
final class ConnectionCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var open = 0
    let limit: Int

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
}

/// Each connection's guard: past the connection limit, a request gets a clean `503` and the
/// connection is closed; a response whose writes make no progress for `sendTimeout` (a client that
/// stopped reading) is ended. Sits after HTTP decoding.
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

    init(counter: ConnectionCounter, sendTimeout: TimeAmount, refused: @escaping @Sendable () -> Void) {
        self.counter = counter
        self.sendTimeout = sendTimeout
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        admitted = counter.enter()
        if admitted { scheduleCheck(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { counter.leave() }
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
        context.fireChannelRead(data)
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
