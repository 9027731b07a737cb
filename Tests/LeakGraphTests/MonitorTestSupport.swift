import Foundation
import LeakGraph
import Logging
import Synchronization

/// Log messages a test reads back: a `LogHandler` that appends to a shared list.
final class CollectedLog: Sendable {
    let messages = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in CollectingHandler(log: self) }
    }

    var warnings: [String] {
        messages.withLock { $0.filter { $0.level == .warning }.map(\.message) }
    }

    struct CollectingHandler: LogHandler {
        let log: CollectedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.messages.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
        }
    }
}

/// The root cycles of `report` with a member whose type name ends in `suffix`.
func cycles(of report: LeakReport, withType suffix: String) -> [LeakReport.Cycle] {
    report.cycles.filter { cycle in
        cycle.members.contains { report.leaks.indices.contains($0) && report.leaks[$0].type.hasSuffix(suffix) }
    }
}

/// A fresh empty folder under the temporary directory.
func temporaryFolder(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "leakgraph-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
