import LeakGraph
import LeakGraphMetrics
import Logging
import MetricsTestKit
import Testing

private final class MetricOwner { var partner: MetricPartner? }
private final class MetricPartner { var owner: MetricOwner? }

@inline(never)
private func leakMetricPair() {
    let owner = MetricOwner()
    owner.partner = MetricPartner()
    owner.partner?.owner = owner
}

/// The monitor's checks as swift-metrics values, read back from `MetricsTestKit`.
@Suite("LeakMonitorMetrics")
struct LeakMonitorMetricsTests {
    @Test("each check sets the gauges and counts; a skipped check only counts as skipped")
    func gauges() throws {
        try LeakChecker.startRecording()
        let metrics = TestMetrics()
        let monitor = LeakMonitor(
            LeakMonitorConfiguration(confirmationDelay: .zero, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }))
        LeakMonitorMetrics.export(monitor, dimensions: [("service", "test")], factory: metrics)
        leakMetricPair()
        let check = monitor.checkNow()
        #expect(!check.isSkipped)
        let dimensions = [("service", "test")]
        #expect(try metrics.expectCounter("leakgraph_checks_total", dimensions).totalValue == 1)
        let leaked = try #require(try metrics.expectGauge("leakgraph_leaked_objects", dimensions).lastValue)
        #expect(Int(leaked) == check.leaks.summary.leakedObjects)
        #expect(leaked >= 2, "the pair this test leaked")
        let bytes = try #require(try metrics.expectGauge("leakgraph_leaked_bytes", dimensions).lastValue)
        #expect(Int(bytes) == check.leaks.summary.leakedBytes)
        let live = try #require(try metrics.expectGauge("leakgraph_live_objects", dimensions).lastValue)
        #expect(Int(live) == check.liveObjects && live >= leaked)
        let duration = try #require(try metrics.expectGauge("leakgraph_check_duration_seconds", dimensions).lastValue)
        let pause = try #require(try metrics.expectGauge("leakgraph_check_pause_seconds", dimensions).lastValue)
        #expect(duration > 0 && pause > 0 && pause <= duration)
        let liveBytes = try #require(try metrics.expectGauge("leakgraph_live_bytes", dimensions).lastValue)
        #expect(Int(liveBytes) == check.liveBytes && liveBytes > bytes)
        let cycles = try #require(try metrics.expectGauge("leakgraph_root_cycles", dimensions).lastValue)
        #expect(Int(cycles) == check.leaks.cycles.count)
        let peak = try #require(try metrics.expectGauge("leakgraph_check_peak_resident_bytes", dimensions).lastValue)
        #expect(Int(peak) == check.peakResidentBytes && peak > 0)
        // Per fingerprint: the pair this test leaked, one instance of two objects.
        let pair = try #require(check.leaks.cycles.first { cycle in
            cycle.members.contains { check.leaks.leaks[$0].type.hasSuffix("MetricOwner") }
        })
        let fingerprint = LeakMonitor.key(of: pair, in: check.leaks)
        let labelled = dimensions + [("fingerprint", fingerprint)]
        #expect(try metrics.expectGauge("leakgraph_leak_cycles", labelled).lastValue == 1)
        #expect(try metrics.expectGauge("leakgraph_leak_objects", labelled).lastValue == 2)

        LeakMonitorMetrics(dimensions: dimensions, factory: metrics).record(
            LeakMonitorCheck(
                number: 2, date: check.date, skipReason: "test", leaks: check.leaks, newLeaks: check.newLeaks,
                newFingerprints: [], pauses: [], duration: .zero, liveObjects: 0))
        #expect(try metrics.expectCounter("leakgraph_checks_skipped_total", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("leakgraph_checks_total", dimensions).totalValue == 1)
    }
}
