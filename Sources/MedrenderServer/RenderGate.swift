/// At most `limit` renders at once; up to `queueLimit` more wait their turn, in order; beyond
/// that a request is turned away (the service answers 503 with Retry-After). A waiter whose task
/// is cancelled (its client left) gives its place in the queue back at once.
actor RenderGate {
    let limit: Int
    let queueLimit: Int
    private var active = 0
    private var lastTicket: UInt64 = 0
    private var waiting: [(ticket: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []

    init(limit: Int, queueLimit: Int) {
        self.limit = max(1, limit)
        self.queueLimit = max(0, queueLimit)
    }

    /// Renders running now.
    var running: Int { active }

    /// Renders waiting for a place.
    var queued: Int { waiting.count }

    /// Takes a place, waiting for one when all are taken; false when the queue is full too, or
    /// when the task is cancelled before a place is free (then it holds none).
    func enter() async -> Bool {
        if active < limit {
            active += 1
            return true
        }
        guard waiting.count < queueLimit, !Task.isCancelled else { return false }
        lastTicket += 1
        let ticket = lastTicket
        return await withTaskCancellationHandler {
            await withCheckedContinuation { waiting.append((ticket, $0)) }
        } onCancel: {
            Task { await self.withdraw(ticket) }
        }
    }

    /// A cancelled waiter leaves the queue, holding no place.
    private func withdraw(_ ticket: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiting.remove(at: index).continuation.resume(returning: false)
    }

    /// Gives the place back (to the first in the queue, if any).
    func leave() {
        if waiting.isEmpty {
            active -= 1
        } else {
            waiting.removeFirst().continuation.resume(returning: true)
        }
    }
}
