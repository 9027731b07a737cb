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
