import Glibc
import Synchronization

/// A program run as the leader of a process group of its own, its standard input and output on
/// `/dev/null` and its standard error kept to its last 64 KiB, so that the program and everything
/// it started end together and nothing it writes can fill medrender's memory.
///
/// While it runs, its group is listed in `ProcessGroups`, which a signal that ends medrender ends
/// first. Not `Sendable`: one thread starts the program, waits for it and ends it.
public final class ProcessGroup {
    /// How a program's run ended.
    public enum Ending: Hashable, Sendable {
        /// It exited by itself with this status.
        case exited(Int32)
        /// A signal it was not sent by medrender ended it (the signal's number).
        case signaled(Int32)
        /// It ran past its time limit, and its group was ended.
        case timedOut
        /// Its caller stopped waiting (`stopped` said so), and its group was ended.
        case stopped
    }

    /// The program's process id, which is also its group's.
    public let pid: pid_t
    /// The reading end of the pipe that is the program's standard error; -1 once it is closed.
    private var errorDescriptor: Int32
    /// The last 64 KiB the program wrote to its standard error.
    public private(set) var errorTail = OutputTail(capacity: 64 << 10)
    private var reaped = false

    /// Starts `executable` with `arguments` in a new process group, with this process's
    /// environment and every signal at its default. `descriptors` gives the program descriptors of
    /// this process's (its number in the program: this process's), standard input and output
    /// among them, in place of `/dev/null`; each is left open here, for the caller to close. The
    /// corresponding C function is `posix_spawn`.
    public init(executable: String, arguments: [String], descriptors: [Int32: Int32] = [:]) throws(IOError) {
        switch ProcessGroups.spawn(executable, arguments, descriptors: descriptors) {
        case .success(let started):
            pid = started.pid
            errorDescriptor = started.standardError
        case .failure(let failure):
            let cause = String(cString: strerror(failure.code))
            if failure.pipe { throw IOError(.io, "cannot be started: no pipe for its messages", path: executable, cause: cause) }
            throw IOError(.missingInput, "cannot be started", path: executable, cause: cause)
        }
    }

    deinit {
        if !reaped { _ = end() }
        if errorDescriptor >= 0 { close(errorDescriptor) }
    }

    /// Reads the program's standard error until it exits, `limitSeconds` pass or `stopped()` is
    /// true, then ends what is left of its group and reaps it. The group of a program stopped early
    /// is sent SIGTERM, then SIGKILL once the program has exited or `graceSeconds` have passed; what
    /// the group left running when the program exited by itself is sent SIGKILL.
    public func wait(limitSeconds: Double, graceSeconds: Double = 2, stopped: () -> Bool) -> Ending {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let outcome = watch(until: Self.deadline(after: limitSeconds), buffer: &buffer, stopped: stopped)
        if outcome != .exited {
            killpg(pid, SIGTERM)
            _ = watch(until: Self.deadline(after: graceSeconds), buffer: &buffer) { false }
        }
        let status = end()
        // Ended by `endAllForExit`: the process exits now, and its caller is told nothing.
        if ProcessGroups.isEnding { ProcessGroups.waitForExit() }
        switch outcome {
        case .exited: return status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        case .deadline: return .timedOut
        case .stopped: return .stopped
        }
    }

    private enum Outcome { case exited, deadline, stopped }

    /// The instant `seconds` from now (at most about 30 years; none before now).
    private static func deadline(after seconds: Double) -> ContinuousClock.Instant {
        ContinuousClock.now.advanced(by: .seconds(min(max(seconds, 0), 1e9)))
    }

    /// Reads standard error into the tail until the leader exits (then what is left in the pipe
    /// is read too), `deadline` passes or `stopped()` is true, checking at least every 50 ms.
    private func watch(until deadline: ContinuousClock.Instant, buffer: inout [UInt8], stopped: () -> Bool) -> Outcome {
        var nap = 1
        while true {
            if leaderExited() {
                // What is left in the pipe; a bounded read, as what the group left running may write on.
                var reads = 0
                while reads < 64, readError(into: &buffer, waitMilliseconds: 0) { reads += 1 }
                return .exited
            }
            if stopped() { return .stopped }
            let left = deadline - .now
            if left <= .zero { return .deadline }
            let (seconds, attoseconds) = left.components
            let slice = Int32(min(50, max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
            if errorDescriptor >= 0 {
                _ = readError(into: &buffer, waitMilliseconds: slice)
            } else {
                // The pipe is closed (the leader is about to exit, or closed it): naps of 1, 2, 4… ms.
                _ = poll(nil, 0, min(slice, Int32(nap)))
                nap = min(nap * 2, 50)
            }
        }
    }

    /// Waits up to `waitMilliseconds` for standard error to have something, and reads it into the
    /// tail; at its end, closes it. Whether anything was read.
    private func readError(into buffer: inout [UInt8], waitMilliseconds: Int32) -> Bool {
        guard errorDescriptor >= 0 else { return false }
        var ready = pollfd(fd: errorDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, waitMilliseconds) == 1 else { return false }
        let count = buffer.withUnsafeMutableBytes { read(errorDescriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            buffer.withUnsafeBytes { errorTail.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            return true
        }
        if count == 0 || (errno != EINTR && errno != EAGAIN) {
            close(errorDescriptor)
            errorDescriptor = -1
        }
        return false
    }

    /// Whether the leader has exited, leaving it to be reaped (so its id stays the group's).
    /// The corresponding C function is `waitid`.
    private func leaderExited() -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
    }

    /// Kills what is left of the group, waits for the leader to exit and reaps it, then the
    /// members this process adopted (when it is PID 1, as in a container); the leader's wait status.
    private func end() -> Int32 {
        // The leader, alive or a zombie, keeps the group's id this program's until it is reaped.
        killpg(pid, SIGKILL)
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        let status = ProcessGroups.reap(pid)
        reaped = true
        var ignored: Int32 = 0
        while waitpid(-pid, &ignored, 0) > 0 || errno == EINTR {}
        return status
    }
}

/// The process groups of the programs running now (`ProcessGroup`), so that a signal that ends
/// medrender ends them first.
public enum ProcessGroups {
    private struct State {
        var groups: Set<pid_t> = []
        /// Set once medrender is ending: no program starts after it.
        var ending = false
    }
    private static let state = Mutex(State())

    /// An error number from making the pipe (`pipe`) or from `posix_spawn` or its set-up.
    struct SpawnError: Error {
        var code: Int32
        var pipe = false
    }

    /// Starts `executable` as the leader of a new group, its standard error a new pipe, and lists
    /// it; its id and the pipe's reading end. The pipe is made and the program started under the
    /// list's lock, so that no signal handler comes between and no other program started here
    /// inherits the pipe. The corresponding C function is `posix_spawn`.
    static func spawn(_ executable: String, _ arguments: [String],
                      descriptors: [Int32: Int32] = [:]) -> Result<(pid: pid_t, standardError: Int32), SpawnError> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        var everySignal = sigset_t(), noSignal = sigset_t()
        sigfillset(&everySignal)
        sigemptyset(&noSignal)
        // Each given descriptor, first copied above every number the program gets, so that no
        // `dup2` below overwrites another's source; the copies close at the program's start.
        let lowest = max(10, (descriptors.keys.max() ?? 0) + 1)
        let sources = descriptors.mapValues { fcntl($0, F_DUPFD_CLOEXEC, lowest) }
        defer { sources.values.filter { $0 >= 0 }.forEach { close($0) } }
        if sources.values.contains(where: { $0 < 0 }) { return .failure(SpawnError(code: errno, pipe: true)) }
        func standard(_ number: Int32, _ flags: Int32) -> Int32 {
            if let source = sources[number] { return posix_spawn_file_actions_adddup2(&actions, source, number) }
            return posix_spawn_file_actions_addopen(&actions, number, "/dev/null", flags, 0)
        }
        let setUp = [
            posix_spawn_file_actions_init(&actions), posix_spawnattr_init(&attributes),
            standard(0, O_RDONLY),
            standard(1, O_WRONLY),
            posix_spawnattr_setpgroup(&attributes, 0),
            // medrender ignores the signals it handles (SignalCleanup); the program must not.
            posix_spawnattr_setsigdefault(&attributes, &everySignal),
            posix_spawnattr_setsigmask(&attributes, &noSignal),
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)),
        ]
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        if let failed = setUp.first(where: { $0 != 0 }) { return .failure(SpawnError(code: failed)) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        return state.withLock { state in
            guard !state.ending else { return .failure(SpawnError(code: ECANCELED)) }
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return .failure(SpawnError(code: errno, pipe: true)) }
            // Neither end goes to a program started later: only `dup2` puts the writing end on the program's 2.
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            defer { close(ends[1]) }
            var pid: pid_t = 0
            var added = posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
            for (number, source) in sources.sorted(by: { $0.key < $1.key }) where number > 2 && added == 0 {
                added = posix_spawn_file_actions_adddup2(&actions, source, number)
            }
            if added == 0 { added = closeFrom(max(3, (descriptors.keys.max() ?? 0) + 1), in: &actions) }
            let code = added == 0 ? posix_spawn(&pid, executable, &actions, &attributes, argv, environ) : added
            guard code == 0 else {
                close(ends[0])
                return .failure(SpawnError(code: code))
            }
            state.groups.insert(pid)
            return .success((pid, ends[0]))
        }
    }

    /// Adds to `actions` the closing of every descriptor from `lowest` up, so that the program holds
    /// none of medrender's files (an output being written, a script another thread has just
    /// written, which could then not be run while the program holds it open). Nothing is added
    /// before glibc 2.34. The corresponding C function is `posix_spawn_file_actions_addclosefrom_np`,
    /// found at run time: Swift's Glibc module declares it only for `_GNU_SOURCE`.
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Int32 {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return 0 }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
    }

    /// Takes the group of `pid` off the list and reaps its leader, which has exited: from then on
    /// its id may be another process's. The leader's wait status.
    static func reap(_ pid: pid_t) -> Int32 {
        state.withLock { state in
            state.groups.remove(pid)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return status
        }
    }

    /// The groups running now.
    public static var running: Set<pid_t> { state.withLock { $0.groups } }

    /// Whether `endAllForExit` has been called.
    static var isEnding: Bool { state.withLock { $0.ending } }

    /// Waits for the exit that follows `endAllForExit`, on the thread that calls it: a thread that
    /// waited on a program which that call ended must not report it as a failure and exit first.
    static func waitForExit() -> Never {
        while true { pause() }
    }

    /// Kills every group listed (SIGKILL), for a caller that exits right after (a signal's handler,
    /// a server that has stopped), and starts no program after it: no program medrender started
    /// outlives it. The threads waiting on those programs wait for the exit.
    public static func endAllForExit() {
        state.withLock { state in
            state.ending = true
            for pid in state.groups { killpg(pid, SIGKILL) }
        }
    }
}
