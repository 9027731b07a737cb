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
/// any (`signal`, 0 for none: the report's `program.signal`). Every file is written through a `.partial` name and
/// renamed into place, the synopsis last, so the CLI never reads half a file (``PreloadFiles``). A
/// failure is written as one sentence to `<output>` + `LG_REPORT_ERROR_SUFFIX`.
@_cdecl("leakgraph_preload_check")
public func leakgraphPreloadCheck(_ outputPath: UnsafePointer<CChar>, _ exitStatus: Int32, _ signal: Int32) {
    PreloadMonitor.stop()
    let path = String(cString: outputPath)
    // `LEAKGRAPH_ORPHAN_SCAN=0` turns the exit check's orphan scan off (read with getenv: no Swift
    // object is made before the check).
    let orphanScan = getenv("LEAKGRAPH_ORPHAN_SCAN").map { strcmp($0, "0") != 0 } ?? true
    var report = LeakChecker.check(liveTypes: lg_preload_live_types() != 0, orphanScan: orphanScan)
    // Read after the check: the strings and arrays made here are Swift objects the check would count.
    let request = PreloadRequest(
        outputPath: path, programPath: String(cString: lg_preload_program_path()),
        arguments: Array(CommandLine.arguments.dropFirst()), exitStatus: exitStatus, render: lg_preload_render()
    )
    if lg_preload_tests_observed() != 0 {
        LeakChecker.attributeTests(in: &report)
    }
    report.program = request.program
    if signal != 0 {
        report.program.signal = PreloadSignalName.name(of: signal)
    }
    let why = String(cString: lg_preload_why()).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
    if !why.isEmpty {
        report.why = why.map { LeakChecker.retainers(ofType: $0) }
    }
    let files = PreloadFiles(outputPath: request.outputPath)
    do {
        try files.write(report, request: request)
    } catch {
        files.writeError("the leak report could not be written to \(request.outputPath): \(error)")
    }
}
