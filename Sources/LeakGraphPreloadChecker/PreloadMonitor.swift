import CLeakGraphContract
import CLeakGraphHook
import LeakGraph
import Synchronization

/// The `LeakMonitor` behind `leakgraph run --every` (`LG_ENV_MONITOR_*` in `CLeakGraphContract.h`).
/// The preload library's own thread decides when to check (every interval, and on the check signal)
/// and calls ``check(_:)``; the monitor is made at the first check and never started (no thread of
/// its own), so it keeps what checks share — the fingerprints already reported, the symbolized
/// stacks — between the calls.
enum PreloadMonitor {
    /// The monitor, made by the first check.
    static let monitor = Mutex<LeakMonitor?>(nil)

    /// Runs one check of the monitor, reported to the log and the report folder.
    static func check(_ settings: lg_checker_request) {
        let monitor = monitor.withLock { monitor in
            if let monitor { return monitor }
            let directory = String(cString: settings.monitor_directory)
            let snapshots = String(cString: settings.monitor_snapshot_directory)
            let made = LeakMonitor(
                LeakMonitorConfiguration(
                    interval: .milliseconds(Int64(settings.monitor_interval_ms)),
                    reportDirectory: directory.isEmpty ? nil : directory, keptReports: Int(LG_MONITOR_KEPT_REPORTS),
                    snapshotDirectory: snapshots.isEmpty ? nil : snapshots,
                    keptSnapshots: Int(LG_MONITOR_KEPT_SNAPSHOTS),
                    program: nil))
            monitor = made
            return made
        }
        monitor.checkNow()
    }
}

/// Called by the preload library's thread of periodic checks for each check. `lg_checker_monitor_check_fn`
/// in `CLeakGraphContract.h`.
@_cdecl("leakgraph_checker_monitor_check")
public func leakgraphCheckerMonitorCheck(_ request: UnsafePointer<lg_checker_request>) {
    // The monitor's own objects (its state, caches, reports) are no part of the program's heap.
    lg_thread_ignore_begin()
    defer { lg_thread_ignore_end() }
    guard PreloadBinding.isBound else {
        LeakMonitorConfiguration().logger.error(
            "LeakGraph: no periodic check can run: \(PreloadBinding.unboundMessage)")
        return
    }
    PreloadMonitor.check(request.pointee)
}
