#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The monitor thread's alarm clock: a POSIX semaphore it waits on with a deadline, posted to ask for
/// a check now. Posting is async-signal-safe (`sem_post`), so a signal handler may ask for a check.
final class CheckWakeup: @unchecked Sendable {
    /// Why ``wait(for:)`` returned.
    enum Reason {
        /// The deadline passed.
        case timeout
        /// ``post()`` was called (once or more: the posts are drained).
        case posted
    }

    private let semaphore: UnsafeMutablePointer<sem_t>

    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes the waiting thread. Async-signal-safe.
    func post() {
        sem_post(semaphore)
    }

    /// Waits until ``post()`` is called.
    func wait() {
        while sem_wait(semaphore) != 0 {
            // EINTR: a signal arrived; wait on.
        }
    }

    /// Waits until ``post()`` is called or `duration` has passed.
    func wait(for duration: Duration) -> Reason {
        let (seconds, attoseconds) = max(duration, .zero).components
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        var nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        deadline.tv_nsec = nanoseconds
        while sem_timedwait(semaphore, &deadline) != 0 {
            if errno == ETIMEDOUT { return .timeout }
            // EINTR: a signal arrived; wait on.
        }
        while sem_trywait(semaphore) == 0 {}
        return .posted
    }
}
