import CoreMetrics
import LeakGraph

/// A `LeakGraph/LeakMonitor`'s checks as swift-metrics values, so a fleet's leaks show in the
/// monitoring it already has (Prometheus through swift-prometheus, OpenTelemetry through swift-otel):
///
/// | metric | kind | value after each check that ran |
/// |---|---|---|
/// | `leakgraph_leaked_objects` | gauge | confirmed leaked objects (reported before or now) |
/// | `leakgraph_leaked_bytes` | gauge | their bytes |
/// | `leakgraph_live_objects` | gauge | tracked objects alive at the check |
/// | `leakgraph_checks_total` | counter | checks run |
/// | `leakgraph_checks_skipped_total` | counter | checks skipped (could not run safely) |
/// | `leakgraph_check_duration_seconds` | gauge | the whole check's time |
/// | `leakgraph_check_pause_seconds` | gauge | the longest heap freeze of the check |
/// | `leakgraph_live_bytes` | gauge | the bytes of the tracked objects alive at the check |
/// | `leakgraph_root_cycles` | gauge | confirmed root cycles |
/// | `leakgraph_check_peak_resident_bytes` | gauge | the process's peak resident memory once the check was over |
/// | `leakgraph_leak_cycles{fingerprint}` | gauge | per leak fingerprint: its confirmed instances (root cycles) |
/// | `leakgraph_leak_objects{fingerprint}` | gauge | per leak fingerprint: their objects |
///
/// The same values as a line of `checks.jsonl` (`LeakGraph/LeakMonitorCheckRecord`).
///
/// ```swift
/// let monitor = LeakMonitor()
/// LeakMonitorMetrics.export(monitor)
/// try monitor.start()
/// ```
public struct LeakMonitorMetrics: Sendable {
    /// Confirmed leaked objects.
    public let leakedObjects: Gauge
    /// Bytes of the confirmed leaked objects.
    public let leakedBytes: Gauge
    /// Tracked objects alive at the latest check.
    public let liveObjects: Gauge
    /// Checks run.
    public let checksRun: Counter
    /// Checks skipped.
    public let checksSkipped: Counter
    /// The latest check's duration, in seconds.
    public let checkDuration: Gauge
    /// The latest check's longest heap freeze, in seconds.
    public let checkPause: Gauge
    /// Bytes of the tracked objects alive at the latest check.
    public let liveBytes: Gauge
    /// Confirmed root cycles.
    public let rootCycles: Gauge
    /// The process's peak resident memory once the latest check was over, in bytes.
    public let checkPeakResidentBytes: Gauge
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory

    /// Creates the metrics with `dimensions` in `factory` (by default the one bootstrapped in
    /// `MetricsSystem`).
    public init(dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory) {
        leakedObjects = Gauge(label: "leakgraph_leaked_objects", dimensions: dimensions, factory: factory)
        leakedBytes = Gauge(label: "leakgraph_leaked_bytes", dimensions: dimensions, factory: factory)
        liveObjects = Gauge(label: "leakgraph_live_objects", dimensions: dimensions, factory: factory)
        checksRun = Counter(label: "leakgraph_checks_total", dimensions: dimensions, factory: factory)
        checksSkipped = Counter(label: "leakgraph_checks_skipped_total", dimensions: dimensions, factory: factory)
        checkDuration = Gauge(label: "leakgraph_check_duration_seconds", dimensions: dimensions, factory: factory)
        checkPause = Gauge(label: "leakgraph_check_pause_seconds", dimensions: dimensions, factory: factory)
        liveBytes = Gauge(label: "leakgraph_live_bytes", dimensions: dimensions, factory: factory)
        rootCycles = Gauge(label: "leakgraph_root_cycles", dimensions: dimensions, factory: factory)
        checkPeakResidentBytes = Gauge(
            label: "leakgraph_check_peak_resident_bytes", dimensions: dimensions, factory: factory)
        self.dimensions = dimensions
        self.factory = factory
    }

    /// Records one check: a skipped check only counts as skipped.
    public func record(_ check: LeakMonitorCheck) {
        guard !check.isSkipped else {
            checksSkipped.increment()
            return
        }
        checksRun.increment()
        leakedObjects.record(check.leaks.summary.leakedObjects)
        leakedBytes.record(check.leaks.summary.leakedBytes)
        liveObjects.record(check.liveObjects)
        checkDuration.record(check.duration.seconds)
        checkPause.record(check.pause.seconds)
        let record = LeakMonitorCheckRecord(check)
        liveBytes.record(record.liveBytes)
        rootCycles.record(record.rootCycles)
        checkPeakResidentBytes.record(record.peakResidentBytes)
        for leak in record.leaks {
            let labels = dimensions + [("fingerprint", leak.fingerprint)]
            Gauge(label: "leakgraph_leak_cycles", dimensions: labels, factory: factory).record(leak.cycles)
            Gauge(label: "leakgraph_leak_objects", dimensions: labels, factory: factory).record(leak.objects)
        }
    }

    /// Creates the metrics and records every check of `monitor` into them from now on.
    @discardableResult
    public static func export(
        _ monitor: LeakMonitor, dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory
    ) -> LeakMonitorMetrics {
        let metrics = LeakMonitorMetrics(dimensions: dimensions, factory: factory)
        monitor.addObserver { metrics.record($0) }
        return metrics
    }
}
