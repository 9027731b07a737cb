import CLeakGraphContract
import CLeakGraphHook
#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraph
import LeakGraphModel
import LeakGraphReport
import LeakGraphSnapshotFile

/// `LG_CHECKER_INTERFACE_VERSION`: the preload library loads this library only when it answers the
/// version it was built with.
@_cdecl("leakgraph_checker_interface_version")
public func leakgraphCheckerInterfaceVersion() -> Int32 {
    Int32(LG_CHECKER_INTERFACE_VERSION)
}

/// Called by the preload library (CLeakGraphPreloadStart) for the final check — when the checked
/// program exits normally, or a terminating signal asks for it: runs the leak check and writes the
/// JSON report for `leakgraph run` to read, with the renderings `LEAKGRAPH_RENDER` asked for beside
/// it. `lg_checker_check_fn` in `CLeakGraphContract.h`.
///
/// The report names the program `LEAKGRAPH_PROGRAM` gave, this process's arguments and
/// `exitStatus` (see ``PreloadRequest``), and the terminating signal that asked for the check, if
/// any (`signal`, 0 for none: the report's `program.signal`). With `LG_ENV_SNAPSHOT`, the same walk
/// also gives a heap snapshot, written there before the report (a failure is one sentence in
/// `<output>` + `LG_REPORT_SNAPSHOT_ERROR_SUFFIX`). Every file is written through a `.partial` name and
/// renamed into place, the synopsis last, so the CLI never reads half a file (``PreloadFiles``). A
/// failure is written as one sentence to `<output>` + `LG_REPORT_ERROR_SUFFIX`.
@_cdecl("leakgraph_checker_check")
public func leakgraphCheckerCheck(_ request: UnsafePointer<lg_checker_request>, _ exitStatus: Int32, _ signal: Int32) {
    // Nothing this thread makes from here on is recorded: the check's own objects are no part of the
    // program's heap (and, held by this thread's frames, would need the holder scan to explain).
    lg_thread_ignore_begin()
    defer { lg_thread_ignore_end() }
    let settings = request.pointee
    let outputPath = String(cString: settings.output_path)
    guard PreloadBinding.isBound else {
        PreloadFiles(outputPath: outputPath).writeError(PreloadBinding.unboundMessage)
        return
    }
    let progress = CheckProgress()
    // `leakgraph run --snapshot FILE`: a heap snapshot of the same walk.
    let wantsSnapshot = settings.snapshot_path.pointee != 0
    let checking = ContinuousClock.now
    let checkingCPU = PreloadCPUTime.seconds()
    let (check, snapshot) = LeakChecker.measuredCheck(
        liveTypes: settings.live_types != 0, orphanScan: settings.orphan_scan != 0, snapshot: wantsSnapshot,
        progress: { progress.update(step: $0, done: $1, total: $2) })
    let checked = ContinuousClock.now
    let checkedCPU = PreloadCPUTime.seconds()
    var report = check.report
    // `leakgraph test`: each root cycle names the tests that made its members (the test observer's scopes).
    if settings.tests_observed != 0 {
        LeakChecker.attributeTests(in: &report)
    }
    // `leakgraph run --allocations`: the profile the hook kept since before `main`.
    if settings.allocations != 0 {
        report.allocations = LeakChecker.allocationProfile()
    }
    var steps = check.steps
    steps.loading = .nanoseconds(Int64(settings.load_nanoseconds))
    // Read after the check: the strings and arrays made here are Swift objects the check would count.
    let request = PreloadRequest(
        outputPath: outputPath, programPath: String(cString: settings.program_path),
        arguments: Array(CommandLine.arguments.dropFirst()), exitStatus: exitStatus, render: settings.render
    )
    report.program = request.program
    if signal != 0 {
        report.program.signal = PreloadSignalName.name(of: signal)
    }
    // One name a line: a name the report prints may hold commas (`Dictionary<Swift.String, Swift.Int>`).
    let why = String(cString: settings.why).split(whereSeparator: \.isNewline).map {
        String($0.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }.filter { !$0.isEmpty }
    if !why.isEmpty {
        report.why = why.map { LeakChecker.retainers(ofType: $0) }
    }
    let files = PreloadFiles(outputPath: request.outputPath)
    if var snapshot {
        progress.update(step: "writing the snapshot", done: 0, total: 0)
        let snapshotPath = String(cString: settings.snapshot_path)
        snapshot.info.programPath = request.program.path
        snapshot.info.arguments = request.program.arguments
        do {
            try HeapSnapshotFile.write(snapshot, to: snapshotPath) {
                progress.update(step: "writing the snapshot", done: $0, total: $1)
            }
        } catch {
            files.writeSnapshotError(error.message)
        }
        if getenv(LG_ENV_SNAPSHOT_STATS) != nil {
            // The measurement knob of scripts/bench-snapshot (docs/performance.md), on standard error.
            var status = stat()
            let size = stat(snapshotPath, &status) == 0 ? Int(status.st_size) : 0
            let peak = "\(LeakCheckSteps.processPeakResidentBytes() / 1024) kB"
            let line =
                "leakgraph: snapshot stats: \(snapshot.objects.count) objects, \(snapshot.references.count) references, "
                + "\(snapshot.stacks.count) stacks; check and snapshot \(checking.duration(to: checked)) "
                + "(CPU \(PreloadCPUTime.text(checkedCPU - checkingCPU))), write \(checked.duration(to: .now)) "
                + "(CPU \(PreloadCPUTime.text(PreloadCPUTime.seconds() - checkedCPU))); "
                + "\(size) bytes; peak RSS \(peak)\n"
            _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }
    progress.update(step: "writing the report", done: 0, total: 0)
    let writing = ContinuousClock.now
    do {
        try files.write(report, request: request)
    } catch {
        files.writeError("the leak report could not be written to \(request.outputPath): \(error)")
    }
    steps.writing = ContinuousClock.now - writing
    progress.finish()
    if settings.verbose != 0 {
        steps.peakResidentBytes = LeakCheckSteps.processPeakResidentBytes()
        let line = "leakgraph: " + steps.line(objects: report.summary.trackedObjects) + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}

/// The process's CPU time, for the measurement knob `LEAKGRAPH_SNAPSHOT_STATS`: on a loaded machine
/// the wall time counts the waiting for a core too.
enum PreloadCPUTime {
    /// The CPU time this process has used, in seconds.
    static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `1.234 s`.
    static func text(_ seconds: Double) -> String {
        "\((seconds * 1000).rounded() / 1000) s"
    }
}
