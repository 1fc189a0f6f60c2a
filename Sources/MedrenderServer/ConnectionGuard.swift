import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Open connections, in all and per client address, shared by every connection's guard; and what
/// waits for one to close (a request that is not sending yet learns so that its client has gone).
final class ConnectionCounter: Sendable {
    /// Whether a new connection is taken, or which limit it is past.
    enum Admission: Sendable, Equatable {
        case admitted
        /// Past the limit of open connections from one address.
        case overAddress
        /// Past the limit of open connections in all.
        case overTotal
    }

    private struct State {
        var open = 0
        var perAddress: [String: Int] = [:]
        var lastID: UInt64 = 0
        var live: Set<UInt64> = []
        var watchers: [UInt64: [(token: UInt64, action: @Sendable () -> Void)]] = [:]
    }

    private let state = Mutex(State())
    let limit: Int
    let addressLimit: Int

    init(limit: Int, addressLimit: Int) {
        self.limit = max(1, limit)
        self.addressLimit = max(1, addressLimit)
    }

    var count: Int { state.withLock { $0.open } }

    /// Counts a new connection from `address`; it is counted whether or not it is admitted, and
    /// `leave` uncounts it.
    func enter(_ address: String) -> Admission {
        state.withLock { state in
            state.open += 1
            state.perAddress[address, default: 0] += 1
            if state.perAddress[address]! > addressLimit { return .overAddress }
            return state.open > limit ? .overTotal : .admitted
        }
    }

    func leave(_ address: String) {
        state.withLock { state in
            state.open -= 1
            state.perAddress[address, default: 1] -= 1
            if state.perAddress[address] == 0 { state.perAddress[address] = nil }
        }
    }

    /// A new connection's number, live until `closed`.
    func opened() -> UInt64 {
        state.withLock { state in
            state.lastID += 1
            state.live.insert(state.lastID)
            return state.lastID
        }
    }

    /// The connection `id` has ended (or its client closed its side): what waits for it runs.
    func closed(_ id: UInt64) {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            state.live.remove(id)
            return state.watchers.removeValue(forKey: id)?.map(\.action) ?? []
        }
        for action in actions { action() }
    }

    /// Whether the connection `id` is open (and its client has not closed its side).
    func isLive(_ id: UInt64) -> Bool { state.withLock { $0.live.contains(id) } }

    /// Runs `action` once the connection `id` closes (now, if it has); `unwatch` with the token
    /// returned forgets it.
    func watch(_ id: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        let (token, now) = state.withLock { state -> (UInt64, Bool) in
            state.lastID += 1
            guard state.live.contains(id) else { return (state.lastID, true) }
            state.watchers[id, default: []].append((state.lastID, action))
            return (state.lastID, false)
        }
        if now { action() }
        return token
    }

    func unwatch(_ id: UInt64, token: UInt64) {
        state.withLock { state in
            state.watchers[id]?.removeAll { $0.token == token }
            if state.watchers[id]?.isEmpty == true { state.watchers[id] = nil }
        }
    }
}

extension HTTPField.Name {
    /// Set on each request by `ConnectionGuard` (a client's own value is replaced): its connection's number.
    static let medrenderConnection = HTTPField.Name("medrender-connection")!
    /// Set on each request by `ConnectionGuard`: the client's address, for the per-address limits.
    static let medrenderPeer = HTTPField.Name("medrender-peer")!
}

/// Each connection's guard. Past the connection limits (in all, or from one address), a request
/// gets a clean `503` and the connection is closed, except for `/healthz` and `/metrics`, which are
/// answered on any connection. A request must arrive whole (head and body) within `requestTimeout`
/// of the connection's start or of the previous answer's end, so a client that trickles a request a
/// byte at a time, or sits idle, is closed. A response whose client takes nothing for `sendTimeout`
/// is ended; a client that takes bytes, however slowly, is never cut: progress is the bytes its TCP
/// acknowledged (`TCP_INFO`), not only the writes done, since the kernel's buffers hold megabytes
/// that a slow player drains for minutes; a close asked for while an answer is still being written
/// waits for its last byte to reach the kernel. Each request is marked with its connection's number and
/// its client's address (`medrender-connection`, `medrender-peer`), and a connection's end is told
/// to the counter. Sits after HTTP decoding.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The paths answered whatever the limits: a probe must learn the server is alive when it is full.
    static let alwaysAnswered: Set<String> = ["/healthz", "/metrics"]

    let counter: ConnectionCounter
    let sendTimeout: TimeAmount
    let requestTimeout: TimeAmount
    let refused: @Sendable () -> Void
    private var admission = ConnectionCounter.Admission.admitted
    private var address = "unknown"
    private var counted = false
    private var pendingWrites = 0
    private var lastProgress = NIODeadline.now()
    private var bytesAcknowledged: UInt64 = 0
    private var check: Scheduled<Void>?
    private var requestDeadline: Scheduled<Void>?
    private var id: UInt64 = 0

    init(counter: ConnectionCounter, sendTimeout: TimeAmount, requestTimeout: TimeAmount, refused: @escaping @Sendable () -> Void) {
        self.counter = counter
        self.sendTimeout = sendTimeout
        self.requestTimeout = requestTimeout
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        id = counter.opened()
        address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        admission = counter.enter(address)
        armRequestDeadline(context)
        if admission == .admitted { scheduleCheck(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted {
            counter.leave(address)
            counter.closed(id)
        }
        counted = false
        check?.cancel()
        check = nil
        requestDeadline?.cancel()
        requestDeadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .end = part {
            requestDeadline?.cancel()
            requestDeadline = nil
        }
        guard case .head(var head) = part else {
            if admission == .admitted || servesOverLimit { context.fireChannelRead(data) }
            return
        }
        if admission != .admitted {
            servesOverLimit = Self.alwaysAnswered.contains(head.path.map { String($0.prefix { $0 != "?" }) } ?? "")
            guard servesOverLimit else { return refuse(context) }
        }
        head.headerFields[.medrenderConnection] = "\(id)"
        head.headerFields[.medrenderPeer] = address
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// Whether this connection, past a limit, is answering a probe (`alwaysAnswered`).
    private var servesOverLimit = false

    /// The 503 of a connection past a limit, and its close.
    private func refuse(_ context: ChannelHandlerContext) {
        refused()
        let text = admission == .overAddress
            ? "this address has all the connections the server takes from one client; close some and try again\n"
            : "the server has all the connections it takes; try again in a few seconds\n"
        let head = HTTPResponse(status: .serviceUnavailable, headerFields: [
            .contentType: "text/plain; charset=utf-8", .contentLength: "\(text.utf8.count)", .retryAfter: "5", .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(string: text))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
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
        var data = data
        if admission != .admitted, servesOverLimit, case .head(var head) = unwrapOutboundIn(data) {
            // A probe answered past a limit does not keep its connection.
            head.headerFields[.connection] = "close"
            data = wrapOutboundOut(.head(head))
        }
        let isEnd: Bool
        if case .end = unwrapOutboundIn(data) { isEnd = true } else { isEnd = false }
        if pendingWrites == 0 { lastProgress = .now() }
        pendingWrites += 1
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            self.pendingWrites -= 1
            self.lastProgress = .now()
            // The answer is sent: the next request has `requestTimeout` to arrive.
            if isEnd { self.armRequestDeadline(context) }
            if self.pendingWrites == 0, let waiting = self.closeWhenSent {
                self.closeWhenSent = nil
                context.close(promise: waiting)
            }
        }
        context.write(data, promise: promise)
    }

    /// A close asked for while an answer's bytes still wait to be written (the connection's idle
    /// timer, which counts from the moment the answer's end is queued, not sent; a graceful stop
    /// closing after the last answer) waits until they are in the kernel, which then sends them
    /// before the connection's end: a slow player gets the end of its file. A client that stops
    /// taking bytes meanwhile is still ended by the send timeout.
    private var closeWhenSent: EventLoopPromise<Void>?

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, pendingWrites > 0 else { return context.close(mode: mode, promise: promise) }
        let waiting = closeWhenSent ?? context.eventLoop.makePromise()
        closeWhenSent = waiting
        if let promise { waiting.futureResult.cascade(to: promise) }
    }

    /// Closes the connection unless a whole request arrives within `requestTimeout`.
    private func armRequestDeadline(_ context: ChannelHandlerContext) {
        requestDeadline?.cancel()
        requestDeadline = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: requestTimeout) {
            context.close(promise: nil)
        }
    }

    /// Every quarter of the send timeout: a write pending with no byte taken by the client for
    /// longer than the timeout ends the connection.
    private func scheduleCheck(_ context: ChannelHandlerContext) {
        let interval = TimeAmount.nanoseconds(max(sendTimeout.nanoseconds / 4, 1_000_000))
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: interval) {
            guard self.pendingWrites > 0 else { return self.scheduleCheck(context) }
            TCPProgress.bytesAcknowledged(context.channel).assumeIsolatedUnsafeUnchecked().whenComplete { result in
                if case .success(let acknowledged) = result, acknowledged > self.bytesAcknowledged {
                    self.bytesAcknowledged = acknowledged
                    self.lastProgress = .now()
                }
                if self.pendingWrites > 0, NIODeadline.now() - self.lastProgress > self.sendTimeout {
                    context.close(promise: nil)
                    return
                }
                self.scheduleCheck(context)
            }
        }
    }
}

/// The bytes a TCP connection's peer has acknowledged: what a client has taken, however slowly,
/// beyond the kernel's send buffer. The corresponding C call is `getsockopt(fd, IPPROTO_TCP,
/// TCP_INFO)`; `tcpi_bytes_acked` (Linux 4.2 and later) is at byte 120 of `struct tcp_info`, past
/// the part glibc's header declares, so the option is read into raw words.
enum TCPProgress {
    /// 160 bytes: `struct tcp_info` up to and beyond `tcpi_bytes_acked`.
    struct RawInfo: Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Byte 120 of `struct tcp_info`, as a word of `RawInfo`.
    static let bytesAckedWord = 120 / 8

    /// The peer's acknowledged bytes; fails where the channel is not a TCP socket.
    static func bytesAcknowledged(_ channel: any Channel) -> EventLoopFuture<UInt64> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let future: EventLoopFuture<RawInfo> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_INFO))
        return future.map { info in
            withUnsafeBytes(of: info.words) { $0.load(fromByteOffset: bytesAckedWord * 8, as: UInt64.self) }
        }
    }
}
