import Foundation
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import LeakGraphSnapshotFile

#if canImport(Glibc)
import Glibc
#endif

/// Reads a snapshot (or a leak report) and analyses it, for `leakgraph snapshot` and `leakgraph
/// serve`, saying on a terminal what it is doing (reading a large snapshot and its dominator tree
/// take a second or two); the line is erased when done.
enum SnapshotLoading {
    /// The snapshot at `path` and its analysis.
    /// - Throws: ``ToolError`` with the file's one-sentence error.
    static func load(_ path: String) throws(ToolError) -> (snapshot: HeapSnapshot, analysis: SnapshotAnalysis) {
        let terminal = isatty(STDERR_FILENO) == 1
        func say(_ text: String) {
            if terminal { writeToStandardError("\r\u{1B}[2Kleakgraph: \(text)") }
        }
        defer { if terminal { writeToStandardError("\r\u{1B}[2K") } }
        say("reading \(path)…")
        let started = ContinuousClock.now
        let snapshot: HeapSnapshot
        do {
            snapshot = try HeapSnapshotFile.read(from: path)
        } catch {
            if terminal { writeToStandardError("\r\u{1B}[2K") }
            throw ToolError(error.message)
        }
        say("analysing \(ReportNaming.count(snapshot.objects.count, "object")) (dominator tree, retained sizes)…")
        let read = ContinuousClock.now
        let analysis = SnapshotAnalysis(snapshot)
        if getenv("LEAKGRAPH_SNAPSHOT_STATS") != nil {
            // The measurement knob of scripts/bench-snapshot (docs/performance.md).
            writeToStandardError(
                "\rleakgraph: snapshot stats: read \(started.duration(to: read)), dominators and retained sizes \(read.duration(to: .now))\n")
        }
        return (snapshot, analysis)
    }
}
