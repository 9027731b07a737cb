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

    /// Freezes the heap, forks, and unfreezes it in this process at once; in the child, which holds the
    /// freeze on its copy of the process (an instant of every tracked object, the hook's table
    /// consistent, no other thread), calls `body` with the tracked objects' addresses, ascending, as
    /// ``Recorder/withFrozenObjects(_:)`` would, and sends the bytes it returns back; then waits for
    /// them at most `timeout` (a child that takes longer is killed) and reaps the child.
    ///
    /// `body` runs in a process with one thread whose other threads vanished at the fork: any lock one
    /// of them held stays held there (the Swift runtime's metadata caches, Foundation's). It must only
    /// read memory and compute; a lock it waits for forever makes the child time out, never the
    /// program. Every signal is blocked in the child (none of the program's handlers runs there); it
    /// ends with `_exit` (no atexit handler) and writes to no descriptor but its result's pipe.
    ///
    /// - Returns: the child's bytes and how long this process was frozen (the pause: taking the hook's
    ///   locks and the fork's copy of the page tables; the child takes the snapshot of the addresses,
    ///   unless another copy of LeakGraph owns the hook without `lg_freeze_only`).
    public static func withFrozenObjects(
        timeout: Duration, _ body: (UnsafeBufferPointer<UInt>) -> [UInt8]
    ) -> (outcome: Outcome, pause: Duration) {
        var child = lg_forked_child(pid: 0, pidfd: -1, read_fd: -1, write_fd: -1)
        let clock = ContinuousClock()
        let start = clock.now
        /// In the child: the snapshot of the addresses (nested in the freeze it holds), `body`, the result.
        func walk() -> Never {
            let bytes = Recorder.withFrozenObjects { body($0) }
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
                    let bytes = body(objects)
                    bytes.withUnsafeBytes { lg_fork_walk_finish(child.write_fd, $0.baseAddress, $0.count) }
                }
                return started
            }
        }
        let pause = clock.now - start
        guard started == 1 else { return (.failed("fork failed (errno \(errnoValue()))"), pause) }
        let milliseconds = max(
            1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0
        var status: Int32 = 0
        let outcome = lg_fork_walk_collect(&child, Int32(clamping: milliseconds), &bytes, &count, &status)
        defer { lg_fork_walk_free(bytes) }
        switch outcome {
        case LG_FORK_WALK_DONE:
            return (.done(Array(UnsafeBufferPointer(start: bytes, count: count))), pause)
        case LG_FORK_WALK_TIMEOUT:
            return (.failed("the child did not finish within \(timeout) and was killed"), pause)
        case LG_FORK_WALK_NO_MEMORY:
            return (.failed("no memory for the child's result"), pause)
        default:
            return (.failed("the child ended without its result (wait status \(status))"), pause)
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
