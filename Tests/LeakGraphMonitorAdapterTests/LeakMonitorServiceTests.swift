import Dispatch
import LeakGraph
import LeakGraphService
import Logging
import ServiceLifecycle
import Testing

/// The monitor as a swift-service-lifecycle `Service`: one line in a `ServiceGroup`, checks while the
/// group runs, ends at graceful shutdown.
@Suite("LeakMonitorService")
struct LeakMonitorServiceTests {
    @Test("a ServiceGroup runs the monitor and ends it at graceful shutdown")
    func serviceGroup() async throws {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let service = LeakMonitorService(
            every: .seconds(3600), configuration: LeakMonitorConfiguration(confirmationDelay: .zero, logger: logger))
        let checked = DispatchSemaphore(value: 0)
        service.monitor.addObserver { _ in checked.signal() }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The service starts the monitor thread; ask it for a check until one ran.
            var ran = false
            for _ in 0..<600 where !ran {
                service.monitor.requestCheck()
                try await Task.sleep(for: .milliseconds(100))
                ran = checked.wait(timeout: .now()) == .success
            }
            #expect(ran, "the running service checked on request")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(service.monitor.statistics.checksRun >= 1)
    }
}
