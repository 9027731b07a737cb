import Foundation

/// This test process's own temporary directory; every compile and run gets a fresh folder inside it.
///
/// The directory is removed when the test process exits, unless `LEAKGRAPH_KEEP_SCRATCH=1` is set (to
/// look at the compiled fixtures and reports after a failure).
enum Scratch {
    /// `$TMPDIR/leakgraph-e2e-<pid>`, created on first use.
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakgraph-e2e-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        if ProcessInfo.processInfo.environment["LEAKGRAPH_KEEP_SCRATCH"] != "1" {
            atexit {
                try? FileManager.default.removeItem(at: Scratch.root)
            }
        }
        return url
    }()

    /// A new empty directory named after `label`.
    static func directory(_ label: String) throws -> URL {
        let url = root.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Deletes the lock files SwiftPM leaves in the temporary directory for a custom scratch path
/// (`<scratch path with / as _>….lock`).
func removeBuildLocks(of scratch: URL) {
    let temporary = FileManager.default.temporaryDirectory
    let prefix = scratch.path.replacingOccurrences(of: "/", with: "_")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".lock") {
        try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
    }
}
