import CLeakGraphContract
import CLeakGraphPreloadStart
import Foundation
import LeakGraph
import LeakGraphReport

/// Called by the preload library's exit handler (CLeakGraphPreloadStart) when the checked program
/// exits normally: runs the leak check and writes the JSON report for `leakgraph run` to read, with
/// the renderings `LEAKGRAPH_RENDER` asked for beside it. Declared in `CLeakGraphPreloadStart.h`.
///
/// The report names the program `LEAKGRAPH_PROGRAM` gave, this process's arguments and
/// `exitStatus` (see ``PreloadRequest``), and the terminating signal that asked for the check, if
/// any (`signal`, 0 for none: the report's `program.signal`). With `LEAKGRAPH_SNAPSHOT`, the same walk
/// also gives a heap snapshot, written there before the report (a failure is one sentence in
/// `<output>` + `LG_REPORT_SNAPSHOT_ERROR_SUFFIX`). Every file is written through a `.partial` name and
/// renamed into place, the synopsis last, so the CLI never reads half a file (``PreloadFiles``). A
/// failure is written as one sentence to `<output>` + `LG_REPORT_ERROR_SUFFIX`.
@_cdecl("leakgraph_preload_check")
public func leakgraphPreloadCheck(_ outputPath: UnsafePointer<CChar>, _ exitStatus: Int32, _ signal: Int32) {
    PreloadMonitor.stop()
    // `LG_ENV_ORPHAN_SCAN=0` turns the exit check's orphan scan off (read with getenv: no Swift
    // object is made before the check).
    let orphanScan = getenv(LG_ENV_ORPHAN_SCAN).map { strcmp($0, "0") != 0 } ?? true
    let started = ContinuousClock.now
    // `leakgraph run --snapshot FILE`: a heap snapshot of the same walk.
    var report: LeakReport
    var snapshot: HeapSnapshot?
    if lg_preload_snapshot_path().pointee == 0 {
        report = LeakChecker.check(liveTypes: lg_preload_live_types() != 0, orphanScan: orphanScan)
    } else {
        (report, snapshot) = LeakChecker.checkWithSnapshot(liveTypes: lg_preload_live_types() != 0, orphanScan: orphanScan)
    }
    let checked = ContinuousClock.now
    // Read after the check: the strings and arrays made here are Swift objects the check would count.
    let path = String(cString: outputPath)
    let snapshotPath = String(cString: lg_preload_snapshot_path())
    let request = PreloadRequest(
        outputPath: path, programPath: String(cString: lg_preload_program_path()),
        arguments: Array(CommandLine.arguments.dropFirst()), exitStatus: exitStatus, render: lg_preload_render()
    )
    report.program = request.program
    if signal != 0 {
        report.program.signal = PreloadSignalName.name(of: signal)
    }
    let why = String(cString: lg_preload_why()).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    if !why.isEmpty {
        report.why = why.map { LeakChecker.retainers(ofType: $0) }
    }
    let files = PreloadFiles(outputPath: request.outputPath)
    if var snapshot {
        snapshot.info.programPath = request.program.path
        snapshot.info.arguments = request.program.arguments
        do {
            try HeapSnapshotFile.write(snapshot, to: snapshotPath)
        } catch {
            files.writeSnapshotError(error.message)
        }
        if getenv("LEAKGRAPH_SNAPSHOT_STATS") != nil {
            // The measurement knob of scripts/bench-snapshot (docs/performance.md), on standard error.
            let size = (try? FileManager.default.attributesOfItem(atPath: snapshotPath)[.size] as? Int) ?? 0
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) } ?? "?"
            let line = "leakgraph: snapshot stats: \(snapshot.objects.count) objects, \(snapshot.references.count) references, "
                + "\(snapshot.stacks.count) stacks; check and snapshot \(started.duration(to: checked)), write \(checked.duration(to: .now)); "
                + "\(size) bytes; peak RSS \(peak)\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
    do {
        try files.write(report, request: request)
    } catch {
        files.writeError("the leak report could not be written to \(request.outputPath): \(error)")
    }
}
