import CLeakGraphContract
import CLeakGraphPreloadStart
import Foundation
import LeakGraph
import Synchronization

/// The `LeakMonitor` that `leakgraph run --every` runs in the checked program (`LG_ENV_MONITOR_*` in
/// `CLeakGraphContract.h`): checks every interval, and when the check signal arrives; stopped before
/// the check at exit.
enum PreloadMonitor {
    /// The running monitor, if any.
    static let running = Mutex<LeakMonitor?>(nil)

    /// Starts the monitor with the constructor's settings, and the thread that waits for the check
    /// signal and asks the monitor for a check.
    static func start() {
        let directory = String(cString: lg_preload_monitor_directory())
        let snapshots = String(cString: lg_preload_monitor_snapshot_directory())
        let configuration = LeakMonitorConfiguration(
            interval: .milliseconds(Int64(lg_preload_monitor_interval_ms())),
            reportDirectory: directory.isEmpty ? nil : directory, keptReports: Int(LG_MONITOR_KEPT_REPORTS),
            snapshotDirectory: snapshots.isEmpty ? nil : snapshots, keptSnapshots: Int(LG_MONITOR_KEPT_SNAPSHOTS),
            program: nil)
        let monitor = LeakMonitor(configuration)
        do {
            try monitor.start()
        } catch {
            configuration.logger.error("LeakGraph: the leak monitor could not start: \(error)")
            return
        }
        running.withLock { $0 = monitor }
        if lg_preload_monitor_signal() != 0 {
            let requests = Thread {
                while true {
                    lg_preload_wait_check_request()
                    monitor.requestCheck()
                }
            }
            requests.name = "LeakGraph check signal"
            requests.start()
        }
    }

    /// Stops the monitor (a check under way finishes first), so that the check at exit runs alone.
    static func stop() {
        let monitor = running.withLock { running in
            defer { running = nil }
            return running
        }
        monitor?.stop()
    }
}

/// Called by the preload library's constructor when `leakgraph run --every` asked for a monitor.
/// Declared in `CLeakGraphPreloadStart.h`.
@_cdecl("leakgraph_preload_monitor_start")
public func leakgraphPreloadMonitorStart() {
    PreloadMonitor.start()
}
