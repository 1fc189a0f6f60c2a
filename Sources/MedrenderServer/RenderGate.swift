/// At most `limit` renders at once; up to `queueLimit` more wait their turn, in order; beyond
/// that a request is turned away (the service answers 503 with Retry-After).
actor RenderGate {
    let limit: Int
    let queueLimit: Int
    private var active = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int, queueLimit: Int) {
        self.limit = max(1, limit)
        self.queueLimit = max(0, queueLimit)
    }

    /// Renders running now.
    var running: Int { active }

    /// Renders waiting for a place.
    var queued: Int { waiting.count }

    /// Takes a place, waiting for one when all are taken; false when the queue is full too.
    func enter() async -> Bool {
        if active < limit {
            active += 1
            return true
        }
        guard waiting.count < queueLimit else { return false }
        await withCheckedContinuation { waiting.append($0) }
        return true
    }

    /// Gives the place back (to the first in the queue, if any).
    func leave() {
        if waiting.isEmpty {
            active -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
