import Foundation

/// Starts the threads for work that blocks longer than a task or a Dispatch worker should be held:
/// a render's stages (pass 2's mixing beside its encoder, `BlockPipeline`; an OGG's decode check,
/// `LiveVorbisCheck`; an OGG's piece encoders, `PiecedVorbisEncoder`, each waiting for the audio
/// handed to it; a video's frame drawing), a whole render read by a task (`ChunkStream`: the
/// server's renders, the studio's takes), a build's jobs, and through `run` the server's other
/// blocking work (presets read, a job prepared with its speech synthesized, sounds decoded and the
/// session planned, a studio cue or a video made, the render cache's lock waited for). Each runs
/// on a thread of its own, named, so the server's event loops and tasks keep running beside it.
/// The command line renders on its main thread (the stages above still start here). Dispatch's
/// pool keeps the parts of a pass or a load that run side by side and end together
/// (`concurrentPerform`: pass 1's and the limited pass's parts, sounds decoded side by side).
///
/// How many run at once is bounded by whoever starts them (the server's render places, a build's
/// jobs, a render's own stages; the presets read and the cache locks waited for only by the
/// server's connections), not by a pool of fixed size here: a render's stages wait on each other,
/// and a fixed pool could leave a stage waiting for a thread its own render holds.
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
