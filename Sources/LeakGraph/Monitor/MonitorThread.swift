#if canImport(Glibc)
    import Glibc
#endif
import LeakGraphRecording
import Synchronization

/// The thread of a running ``LeakMonitor``: waits for the interval or a request, checks, repeats.
final class MonitorThread: Sendable {
    private let stopping = Atomic(false)
    /// Posted when the thread ends.
    private let ended = CheckWakeup()
    /// The thread's `pthread_t` once it runs (0 before).
    private let threadID = Atomic<UInt>(0)

    init(monitor: LeakMonitor) {
        PlainThreads.detach { [self] in
            // Nothing this thread makes is recorded: the monitor's state, its reports and caches are no
            // part of the program's heap, so its checks and snapshots never list them (as the preload's
            // thread of periodic checks does).
            Recorder.ignoringCurrentThread {
                threadID.store(UInt(pthread_self()), ordering: .releasing)
                defer { ended.post() }
                while true {
                    _ = monitor.wakeup.wait(for: monitor.configuration.interval)
                    if stopping.load(ordering: .acquiring) { return }
                    monitor.checkNow()
                }
            }
        }
    }

    /// Ends the thread after its current check, and waits for it to end — unless called on the
    /// thread itself (from an observer or the callback): then it ends after this check.
    func stop(waking wakeup: CheckWakeup) {
        stopping.store(true, ordering: .releasing)
        wakeup.post()
        guard threadID.load(ordering: .acquiring) != UInt(pthread_self()) else { return }
        ended.wait()
    }
}
