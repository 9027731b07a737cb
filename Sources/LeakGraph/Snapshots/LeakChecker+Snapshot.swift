import FoundationEssentials
import LeakGraphModel
import LeakGraphRecording
import LeakGraphReport

extension LeakChecker {
    /// Takes a heap snapshot: every live tracked object with its type, size, retain count and creation
    /// stack, every reference between two of them with its typed path and ownership, the leaked objects
    /// marked, and the roots — objects held from outside the heap — with what holds each.
    ///
    /// The heap is frozen for the walk, as for a leak check (other threads that allocate wait); the
    /// stacks are symbolized and the holders named afterwards. Write it with `HeapSnapshotFile.write(_:to:)`
    /// (LeakGraphSnapshotFile) and read it with `leakgraph snapshot` or `leakgraph serve`.
    ///
    /// ```swift
    /// let snapshot = LeakChecker.snapshot()
    /// try HeapSnapshotFile.write(snapshot, to: "/tmp/app.lgsnap")
    /// ```
    ///
    /// - Parameters:
    ///   - program: the program the snapshot names (by default the running executable and its arguments).
    ///   - holders: say what holds each root (a global by its symbol, a thread's stack, C memory): the
    ///     holder scan stops the other threads for a moment while it reads the process's memory
    ///     (docs/how-it-works.md, "Orphaned retains"). Without it every holder is unknown.
    ///   - orphanScan: also mark orphans (objects retained from nowhere) as leaked, as a check with
    ///     `orphanScan` does.
    /// - Complexity: O(*n* log *n* + *r* log *n*) for *n* live objects and *r* references; the snapshot
    ///   takes about 60 bytes per object with two references each.
    public static func snapshot(
        program: LeakReport.Program? = nil, holders: Bool = true, orphanScan: Bool = false
    ) -> HeapSnapshot {
        HolderScan.enterCheck()
        defer { HolderScan.leaveCheck() }
        return Recorder.ignoringCurrentThread {
            var capture: SnapshotCapture?
            var steps = LeakCheckSteps()
            _ = captureLeakedGraph(
                orphanScan: orphanScan, steps: &steps,
                whileFrozen: { frozen in capture = SnapshotCapture.take(frozen, holders: holders) })
            return capture!.finish(program: program ?? LeakMonitor.runningProgram(), executablePath: nil)
        }
    }

    /// A whole leak check (as ``check(program:executablePath:liveTypes:orphanScan:knownOrphans:)``)
    /// and a heap snapshot from the same walk: the snapshot's leaked objects and their references are
    /// exactly the report's.
    public static func checkWithSnapshot(
        program: LeakReport.Program = LeakReport.Program(path: "", arguments: [], exitStatus: 0),
        executablePath: String? = nil, liveTypes: Bool = false, orphanScan: Bool = false, holders: Bool = true
    ) -> (report: LeakReport, snapshot: HeapSnapshot) {
        let (check, snapshot) = measuredCheckWithSnapshot(
            program: program, executablePath: executablePath, liveTypes: liveTypes, orphanScan: orphanScan,
            holders: holders, progress: nil)
        return (check.report, snapshot)
    }

    /// The preload checker's exit check (``measuredCheck(liveTypes:orphanScan:progress:)``), with a heap
    /// snapshot of the same walk when `snapshot` is true (the holders named).
    package static func measuredCheck(
        liveTypes: Bool, orphanScan: Bool, snapshot: Bool, progress: @escaping LeakCheckProgress
    ) -> (check: MeasuredLeakCheck, snapshot: HeapSnapshot?) {
        guard snapshot else {
            return (measuredCheck(liveTypes: liveTypes, orphanScan: orphanScan, progress: progress), nil)
        }
        return measuredCheckWithSnapshot(
            program: LeakReport.Program(path: "", arguments: [], exitStatus: 0), executablePath: nil,
            liveTypes: liveTypes, orphanScan: orphanScan, holders: true, progress: progress)
    }

    /// A measured check and the heap snapshot taken in its frozen walk; its stacks are symbolized and its
    /// roots' holders named after the heap is released.
    private static func measuredCheckWithSnapshot(
        program: LeakReport.Program, executablePath: String?, liveTypes: Bool, orphanScan: Bool, holders: Bool,
        progress: LeakCheckProgress?
    ) -> (check: MeasuredLeakCheck, snapshot: HeapSnapshot) {
        // Nothing this makes (the closure below, its box) is an object of the program.
        Recorder.ignoringCurrentThread {
            var capture: SnapshotCapture?
            let check = measuredCheck(
                program: program, executablePath: executablePath, liveTypes: liveTypes, orphanScan: orphanScan,
                stacks: nil, progress: progress,
                whileFrozen: { frozen in capture = SnapshotCapture.take(frozen, holders: holders, progress: progress) })
            progress?("snapshot: creation stacks and holders", 0, 0)
            let snapshot = HolderScan.checking { capture!.finish(program: program, executablePath: executablePath) }
            return (check, snapshot)
        }
    }
}
