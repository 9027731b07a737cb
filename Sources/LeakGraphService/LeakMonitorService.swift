import LeakGraph
import ServiceLifecycle

/// A `LeakGraph/LeakMonitor` as a swift-service-lifecycle `Service`: it checks while the service
/// group runs and stops at graceful shutdown or cancellation.
///
/// ```swift
/// let group = ServiceGroup(services: [server, LeakMonitorService(every: .seconds(30))], logger: logger)
/// ```
public struct LeakMonitorService: Service {
    /// The monitor the service runs.
    public let monitor: LeakMonitor

    /// A service running `monitor`.
    public init(_ monitor: LeakMonitor) {
        self.monitor = monitor
    }

    /// A service running a monitor that checks every `interval`, with `configuration`'s other settings.
    public init(every interval: Duration, configuration: LeakMonitorConfiguration = LeakMonitorConfiguration()) {
        var configuration = configuration
        configuration.interval = interval
        self.monitor = LeakMonitor(configuration)
    }

    /// Starts the monitor, waits for graceful shutdown (or cancellation), and stops it: a check under
    /// way finishes first.
    ///
    /// - Throws: `RecorderError` when recording cannot start.
    public func run() async throws {
        try monitor.start()
        try? await gracefulShutdown()
        await monitor.stop()
    }
}
