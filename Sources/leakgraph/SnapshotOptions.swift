import ArgumentParser
import CLeakGraphContract
import Foundation

/// `leakgraph run --snapshot FILE`: the check at exit also writes a heap snapshot of the same walk.
struct SnapshotOptions: ParsableArguments {
    /// Where the snapshot goes.
    @Option(
        name: .customLong("snapshot"),
        help: ArgumentHelp(
            "Also write a heap snapshot at exit (every live object and reference; read it with `leakgraph snapshot` or `leakgraph serve`).",
            valueName: "file"))
    var path: String?

    /// The snapshot's path made absolute, after checking that a file can be written there: a new file
    /// in a writable folder, or a regular file (replaced whole once the new snapshot is complete).
    /// - Throws: ``ToolError`` naming the path and the reason.
    func checkedPath() throws(ToolError) -> String? {
        guard let path else { return nil }
        let output = try OutputFile(path, what: "snapshot")
        guard case .atomic(let target, _) = output.method else {
            throw ToolError(
                "cannot write the snapshot to \(path): a snapshot is a SQLite file; give the path of a file")
        }
        return URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL.path
    }

    /// The variable that asks the preload library for the snapshot (`LG_ENV_SNAPSHOT`).
    static func environment(_ absolutePath: String?) -> [String: String] {
        absolutePath.map { [LG_ENV_SNAPSHOT: $0] } ?? [:]
    }
}
