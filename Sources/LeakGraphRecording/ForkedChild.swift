import CLeakGraphHook

#if canImport(Glibc)
    import Glibc
#endif

/// Work done on a copy-on-write copy of this process: the heap frozen only for a `fork()`, then read in
/// the child while the program runs on (docs/monitoring.md, "The walk in a forked child").
public enum ForkedChild {
    /// What ``withFrozenObjects(timeout:_:)`` got back.
    public enum Outcome: Sendable {
        /// The bytes the child's body returned.
        case done([UInt8])
        /// No result: why (no child could be made, it did not finish in time and was killed, it ended
        /// without writing its whole result).
        case failed(String)
    }

    /// What ``withFrozenObjects(timeout:_:followUp:)`` got back: the body's bytes, and the follow-up's
    /// when one was asked for and the body's came.
    public struct Outcomes: Sendable {
        /// The body's result.
        public var outcome: Outcome
        /// The follow-up's result; `nil` when none was asked for, or the body gave no result.
        public var followUp: Outcome?
        /// How long this process was frozen.
        public var pause: Duration
    }

    /// Freezes the heap, forks, and unfreezes it in this process at once; in the child, which holds the
    /// freeze on its copy of the process (an instant of every tracked object, the hook's table
    /// consistent, no other thread), calls `body` with the tracked objects' addresses, ascending, as
    /// ``Recorder/withFrozenObjects(_:)`` would, and sends the bytes it returns back; then waits for
    /// them at most `timeout` (a child that takes longer is killed) and reaps the child.
    ///
    /// With `followUp`, the child then calls it (still holding its freeze) and sends its bytes too,
    /// which this process waits for at most `timeout` again, counted from the body's result: work
    /// that may take longer or hang (a lock another thread held at the fork) without costing the
    /// body's result — a follow-up that does not come in time is `.failed` and the child is killed.
    ///
    /// `body` runs in a process with one thread whose other threads vanished at the fork: any lock one
    /// of them held stays held there (the Swift runtime's metadata caches, Foundation's). It must only
    /// read memory and compute; a lock it waits for forever makes the child time out, never the
    /// program. Every signal is blocked in the child (none of the program's handlers runs there); it
    /// ends with `_exit` (no atexit handler) and writes to no descriptor but its result's pipe.
    ///
    /// - Returns: the child's bytes, its follow-up's, and how long this process was frozen (the pause:
    ///   taking the hook's locks and the fork's copy of the page tables; the child takes the snapshot
    ///   of the addresses, unless another copy of LeakGraph owns the hook without `lg_freeze_only`).
    public static func withFrozenObjects(
        timeout: Duration, _ body: (UnsafeBufferPointer<UInt>) -> [UInt8], followUp: (() -> [UInt8])? = nil
    ) -> Outcomes {
        var child = lg_forked_child(pid: 0, pidfd: -1, read_fd: -1, write_fd: -1)
        let clock = ContinuousClock()
        let start = clock.now
        /// In the child: the body's bytes, sent when a follow-up comes after them; then the last bytes.
        func childResult(_ objects: UnsafeBufferPointer<UInt>) -> [UInt8] {
            let bytes = body(objects)
            guard let followUp else { return bytes }
            let sent = bytes.withUnsafeBytes { lg_fork_walk_send(child.write_fd, $0.baseAddress, $0.count) }
            // A pipe that took no result takes no follow-up either: the last write fails, status 1.
            return sent == 0 ? followUp() : []
        }
        /// In the child: the snapshot of the addresses (nested in the freeze it holds), `body`, the result.
        func walk() -> Never {
            let bytes = Recorder.withFrozenObjects { childResult($0) }
            bytes.withUnsafeBytes { lg_fork_walk_finish(child.write_fd, $0.baseAddress, $0.count) }
        }
        let started: Int32
        if lg_freeze_only() != 0 {
            // Frozen without a snapshot: the child takes it, so the pause is the locks and the fork.
            started = lg_fork_walk_start(&child)
            if started == 0 { walk() }
            lg_unfreeze_only()
        } else {
            // Another copy of LeakGraph owns the hook and has no freeze without a snapshot.
            started = Recorder.withFrozenObjects { objects -> Int32 in
                let started = lg_fork_walk_start(&child)
                if started == 0 {
                    let bytes = childResult(objects)
                    bytes.withUnsafeBytes { lg_fork_walk_finish(child.write_fd, $0.baseAddress, $0.count) }
                }
                return started
            }
        }
        let pause = clock.now - start
        guard started == 1 else {
            return Outcomes(outcome: .failed("fork failed (errno \(errnoValue()))"), followUp: nil, pause: pause)
        }
        let outcome = receive(&child, timeout: timeout)
        var followed: Outcome?
        if case .done = outcome, followUp != nil {
            followed = receive(&child, timeout: timeout)
        }
        let finished = [outcome, followed].allSatisfy { outcome in
            if case .failed = outcome { return false }
            return true
        }
        let status = lg_fork_walk_end(&child, finished ? 0 : 1)
        /// A message that did not come whole while the child ended by itself says how it ended.
        func described(_ outcome: Outcome?) -> Outcome? {
            guard case .failed(let reason) = outcome, reason.isEmpty else { return outcome }
            return .failed("the child ended without its result (wait status \(status))")
        }
        return Outcomes(outcome: described(outcome) ?? outcome, followUp: described(followed), pause: pause)
    }

    /// One message of the child, waited for at most `timeout`; a child that ended without it is
    /// `.failed("")` (its wait status is known once it is reaped).
    private static func receive(_ child: inout lg_forked_child, timeout: Duration) -> Outcome {
        let milliseconds = max(
            1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0
        let outcome = lg_fork_walk_receive(&child, Int32(clamping: milliseconds), &bytes, &count)
        defer { lg_fork_walk_free(bytes) }
        switch outcome {
        case LG_FORK_WALK_DONE:
            return .done(Array(UnsafeBufferPointer(start: bytes, count: count)))
        case LG_FORK_WALK_TIMEOUT:
            return .failed("the child did not finish within \(timeout) and was killed")
        case LG_FORK_WALK_NO_MEMORY:
            return .failed("no memory for the child's result")
        default:
            return .failed("")
        }
    }

    private static func errnoValue() -> Int32 {
        #if canImport(Glibc)
            return Glibc.errno
        #else
            return 0
        #endif
    }
}
