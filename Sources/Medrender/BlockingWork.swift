import Foundation

/// Where medrender runs work that blocks for as long as a render: mixing and encoding, a stage
/// that waits on the next one (a decoder on its encoder, a frame drawer on the video encoder), a
/// file lock. Each runs on a thread of its own, started here and named, never on a task of Swift's
/// cooperative pool or a Dispatch worker, which it would hold for minutes: the server's event
/// loops and tasks keep running beside any number of renders, and short parallel work (measuring
/// a pass in parts, decoding sounds side by side) stays on Dispatch's pool, which is meant for it.
///
/// How many run at once is bounded by whoever starts them (the server's render places, a build's
/// jobs, a render's own stages), not by a pool of fixed size here: a render's stages wait on each
/// other, and a fixed pool could leave a stage waiting for a thread its own render holds.
public enum BlockingWork {
    /// Starts `body` on a thread of its own called `name`; `stackSize` in bytes, else the system's.
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// Runs `body` on a thread of its own and gives its result to the task that awaits it, which
    /// holds no thread meanwhile.
    public static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
            start(name) { done.resume(with: Result { try body() }) }
        }
    }

    /// `run` for work that cannot fail.
    public static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            start(name) { done.resume(returning: body()) }
        }
    }
}
