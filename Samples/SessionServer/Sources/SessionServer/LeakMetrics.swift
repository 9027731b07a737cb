// The sample's leak checks as Prometheus metrics: a LeakMonitor whose checks LeakGraphMetrics records
// into a swift-prometheus registry, served at /metrics. Each scrape runs one check (the collect-on-scrape
// way of Prometheus exporters): the gauges are as fresh as the scrape, and the program runs no second
// periodic checker beside the one `leakgraph run --every` preloads.

import LeakGraph
import LeakGraphMetrics
import Prometheus

/// `/metrics` for the sample: recording, a monitor that checks when scraped, the registry it fills.
final class LeakMetrics: Sendable {
    /// The monitor; never started, so it only checks when `/metrics` is asked for.
    let monitor: LeakMonitor
    /// Where `LeakMonitorMetrics` records each check (`leakgraph_leaked_objects`, …).
    let registry: PrometheusCollectorRegistry
    /// The HTTP listener.
    let endpoint: MetricsEndpoint

    /// Starts recording (under `leakgraph run` the preloaded library's recording is joined), then the
    /// listener on 127.0.0.1:`port` (0: the system picks one).
    ///
    /// - Throws: a `RecorderError` when the hook cannot be installed, a
    ///   ``MetricsEndpoint/StartError`` when the port cannot be listened on.
    init(port: UInt16) throws {
        try LeakChecker.startRecording()
        let monitor = LeakMonitor()
        let registry = PrometheusCollectorRegistry()
        LeakMonitorMetrics.export(monitor, factory: PrometheusMetricsFactory(registry: registry))
        self.monitor = monitor
        self.registry = registry
        endpoint = try MetricsEndpoint(port: port) {
            monitor.checkNow()
            return registry.emitToString()
        }
    }
}
