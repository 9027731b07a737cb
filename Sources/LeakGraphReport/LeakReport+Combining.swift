import LeakGraphModel

extension LeakReport {
    /// One run's report, named for the combined report (``init(combining:program:)``).
    public struct NamedRun: Sendable, Equatable {
        /// The run's name, e.g. `XCTest` or `Swift Testing`; stored in each of its cycles'
        /// ``LeakReport/Cycle/run``.
        public var name: String
        /// The run's report.
        public var report: LeakReport

        /// Names `report`.
        public init(name: String, report: LeakReport) {
            self.name = name
            self.report = report
        }
    }

    /// The reports of several runs of one program as one report, as `leakgraph test` prints it.
    ///
    /// Leaks, references and cycles are concatenated in the order of `runs`, their ids and indices
    /// renumbered so that they stay unique and consistent (a leak's `cycle`, a cycle's `members`, `holds`
    /// and `heldCycles`, a suspect's `from`, `to` and `reference`, a proof's `inEdges`); every cycle is
    /// marked with its run's name (``LeakReport/Cycle/run``). Fingerprints and known-library-leak marks
    /// are kept as they are. Summaries are added up; diagnostics are concatenated; allocation profiles
    /// are added up (``AllocationProfile/init(combining:)``); per-test counts are concatenated, each marked
    /// with its run.
    ///
    /// - Complexity: O(total size of the reports).
    public init(combining runs: [NamedRun], program: Program) {
        var leaks: [Leak] = []
        var references: [LeakReference] = []
        var cycles: [Cycle] = []
        var diagnostics: [WalkDiagnostic] = []
        var summary = Summary(trackedObjects: 0, liveObjects: 0, leakedObjects: 0, leakedBytes: 0, rootCycles: 0)
        for run in runs {
            let part = run.report
            let leakOffset = (leaks.map(\.id).max() ?? -1) + 1 - (part.leaks.map(\.id).min() ?? 0)
            let cycleOffset = (cycles.map(\.id).max() ?? -1) + 1 - (part.cycles.map(\.id).min() ?? 0)
            let referenceOffset = references.count
            let leakID = { (id: Int) in id + leakOffset }
            for var leak in part.leaks {
                leak.id = leakID(leak.id)
                leak.cycle = leak.cycle.map { $0 + cycleOffset }
                if var proof = leak.proof {
                    proof.inEdges = proof.inEdges.map(leakID)
                    leak.proof = proof
                }
                leaks.append(leak)
            }
            for var reference in part.references {
                reference.from = leakID(reference.from)
                reference.to = leakID(reference.to)
                references.append(reference)
            }
            for var cycle in part.cycles {
                cycle.id += cycleOffset
                cycle.heldByKnownLibraryLeak = cycle.heldByKnownLibraryLeak.map { $0 + cycleOffset }
                cycle.members = cycle.members.map(leakID)
                cycle.holds = cycle.holds.map(leakID)
                cycle.heldCycles = cycle.heldCycles?.map { $0.map(leakID) }
                let shifted = { (suspect: Suspect) -> Suspect in
                    var moved = suspect
                    moved.from = leakID(suspect.from)
                    moved.to = leakID(suspect.to)
                    moved.reference = suspect.reference.map { $0 + referenceOffset }
                    return moved
                }
                cycle.suspect = cycle.suspect.map(shifted)
                cycle.otherCuts = cycle.otherCuts?.map(shifted)
                cycle.run = run.name
                cycles.append(cycle)
            }
            diagnostics += part.diagnostics
            summary.trackedObjects += part.summary.trackedObjects
            summary.liveObjects += part.summary.liveObjects
            summary.leakedObjects += part.summary.leakedObjects
            summary.leakedBytes += part.summary.leakedBytes
            summary.rootCycles += part.summary.rootCycles
        }
        self.init(
            program: program, summary: summary, leaks: leaks, references: references, cycles: cycles,
            diagnostics: diagnostics)
        allocations = AllocationProfile(combining: runs.compactMap(\.report.allocations))
        let tests = runs.flatMap { run in
            (run.report.testAllocations ?? []).map {
                TestAllocations(test: $0.test, run: run.name, allocations: $0.allocations)
            }
        }
        testAllocations = runs.contains { $0.report.testAllocations != nil } ? tests : nil
    }
}
