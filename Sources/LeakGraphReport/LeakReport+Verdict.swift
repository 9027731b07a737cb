extension LeakReport {
    /// The number of leaked objects a check fails on — the one place that decides it: every leaked object
    /// except the members and held objects of root cycles that are known library leaks
    /// (``Cycle/knownLibraryLeak``, the built-in baseline) or that a user's baseline accepts
    /// (``Cycle/suppressed``). `leakgraph run` exits with the leak status (23 by default) and `leakgraph test`
    /// with 1 when it is not 0 (docs/exit-status.md).
    public var newLeakedObjects: Int {
        summary.leakedObjects - cycles.reduce(0) { $0 + ($1.isExcused ? $1.members.count + $1.holds.count : 0) }
    }

    /// ``newLeakedObjects``, under the name it had before baselines (then only known library leaks were
    /// left out); the report synopsis keeps this name.
    public var leakedObjectsOutsideLibraries: Int { newLeakedObjects }

    /// The root cycles a check fails on: neither known library leaks nor accepted by a baseline.
    public var newCycles: [Cycle] { cycles.filter { !$0.isExcused } }

    /// The root cycles a user's baseline accepts (``Cycle/suppressed``).
    public var suppressedCycles: [Cycle] { cycles.filter { $0.suppressed != nil } }
}

extension LeakReport.Cycle {
    /// Whether a check does not fail on the cycle: a known library leak or accepted by a baseline.
    public var isExcused: Bool { knownLibraryLeak != nil || suppressed != nil }
}

extension LeakReport {
    /// What a check concluded about leaks, apart from how the program itself ended
    /// (``Program/exitStatus``): the JSON report's `verdict` (an additional field, written, never read).
    public enum Verdict: String, Sendable, Equatable, CaseIterable {
        /// Objects outside known library leaks are leaked: the check fails.
        case leaksFound
        /// Only known leaks of libraries (``Cycle/knownLibraryLeak``) and what they hold: reported, the check passes.
        case onlyKnownLibraryLeaks
        /// Nothing is leaked.
        case noLeaks
        /// No leak check ran: the program crashed (``LeakReport/crash``).
        case notChecked
    }

    /// The report's verdict, from its leaks: ``Verdict/leaksFound`` when
    /// ``leakedObjectsOutsideLibraries`` is not 0.
    public var verdict: Verdict {
        if crash != nil { return .notChecked }
        if leakedObjectsOutsideLibraries > 0 { return .leaksFound }
        return summary.leakedObjects > 0 ? .onlyKnownLibraryLeaks : .noLeaks
    }
}

extension ReportSynopsis {
    /// The verdict of the report this synopsis stands for (``LeakReport/verdict``).
    public var verdict: LeakReport.Verdict {
        if leakedObjectsOutsideLibraries > 0 { return .leaksFound }
        return summary.leakedObjects > 0 ? .onlyKnownLibraryLeaks : .noLeaks
    }
}
