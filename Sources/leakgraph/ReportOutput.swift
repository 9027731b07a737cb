import Foundation
import LeakGraphReport

/// Writes the finished report where the user asked for it.
enum ReportOutput {
    /// Fails early, before the program runs, when a file the user named cannot be written
    /// (``OutputFile``: a missing or read-only directory, a directory, a read-only file or device).
    /// - Returns: the checked output.
    @discardableResult
    static func checkWritable(_ path: String, what: String) throws(ToolError) -> OutputFile {
        try OutputFile(path, what: what)
    }

    /// Writes `data` to `path` as ``OutputFile`` says: atomically for a regular file or a new one,
    /// through symlinks, pipes, devices and the standard streams otherwise.
    static func write(_ data: Data, to path: String, what: String) throws(ToolError) {
        try OutputFile(path, what: what).write(data)
    }

    /// One line for standard error when the full text summary went to a file.
    static func shortSummary(_ synopsis: ReportSynopsis, textPath: String) -> String {
        "leakgraph: \(synopsis.leakSummary); summary written to \(textPath)"
    }
}
