#if canImport(Glibc)
    import Glibc
#endif

/// Threads and sleeps without Foundation: the library `leakgraph run` loads into a checked program
/// links FoundationEssentials only (docs/performance.md, "What a check costs a small program"), and
/// Foundation's `Thread` is not in it.
enum PlainThreads {
    /// Runs `body` on a new detached thread.
    static func detach(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(run: body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.run()
                return nil
            }, box)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Body>.fromOpaque(box).release()
        }
    }

    /// Blocks the calling thread for `duration`.
    static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = max(duration, .zero).components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            request = remaining
        }
    }

    private final class Body: @unchecked Sendable {
        let run: @Sendable () -> Void

        init(run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }
}

extension Duration {
    /// `200 ms`, `2 sec`, `1 sec, 500 ms`: whole seconds and milliseconds, abbreviated.
    package var secondsAndMilliseconds: String {
        let milliseconds = Int((seconds * 1000).rounded())
        let (whole, rest) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        switch (whole, rest) {
        case (0, _): return "\(rest) ms"
        case (_, 0): return "\(whole) sec"
        default: return "\(whole) sec, \(rest) ms"
        }
    }
}
