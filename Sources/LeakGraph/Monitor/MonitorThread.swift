import Foundation
import Synchronization

/// The thread of a running ``LeakMonitor``: waits for the interval or a request, checks, repeats.
final class MonitorThread: Sendable {
    private let stopping = Atomic(false)
    private let ended = DispatchSemaphore(value: 0)

    init(monitor: LeakMonitor) {
        let thread = Thread { [self] in
            defer { ended.signal() }
            while true {
                _ = monitor.wakeup.wait(for: monitor.configuration.interval)
                if stopping.load(ordering: .acquiring) { return }
                monitor.checkNow()
            }
        }
        thread.name = "LeakGraph monitor"
        thread.start()
    }

    /// Ends the thread after its current check, and waits for it to end.
    func stop(waking wakeup: CheckWakeup) {
        stopping.store(true, ordering: .releasing)
        wakeup.post()
        ended.wait()
    }
}
