import CLeakGraphContract
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
        let startedCPU = processCPUSeconds()
        let snapshot: HeapSnapshot
        var shownPercent = -1
        do {
            snapshot = try HeapSnapshotFile.read(
                from: path,
                progress: terminal
                    ? { done, total in
                        let percent = total > 0 ? done * 100 / total : 0
                        guard percent != shownPercent else { return }
                        shownPercent = percent
                        say("reading \(path)… \(percent)%")
                    } : nil)
        } catch {
            if terminal { writeToStandardError("\r\u{1B}[2K") }
            throw ToolError(error.message)
        }
        say("analysing \(ReportNaming.count(snapshot.objects.count, "object")) (dominator tree, retained sizes)…")
        let read = ContinuousClock.now
        let readCPU = processCPUSeconds()
        let analysis = SnapshotAnalysis(snapshot)
        if getenv(LG_ENV_SNAPSHOT_STATS) != nil {
            // The measurement knob of scripts/bench-snapshot (docs/performance.md): wall time, and the
            // process's CPU time beside it (on a loaded machine the wall time counts the waiting too).
            let analysed = ContinuousClock.now
            let analysedCPU = processCPUSeconds()
            writeToStandardError(
                "\rleakgraph: snapshot stats: read \(started.duration(to: read)) (CPU \(cpu(readCPU - startedCPU))), "
                    + "dominators and retained sizes \(read.duration(to: analysed)) (CPU \(cpu(analysedCPU - readCPU)))\n"
            )
        }
        return (snapshot, analysis)
    }

    /// The CPU time this process has used, in seconds.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func cpu(_ seconds: Double) -> String {
        "\((seconds * 1000).rounded() / 1000) s"
    }
}
