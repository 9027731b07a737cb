extension LeakReport {
    /// The number of leaked objects a check fails on — the one place that decides it: every leaked object
    /// except the members and held objects of root cycles that are known library leaks
    /// (``Cycle/knownLibraryLeak``, the built-in baseline) or that a user's baseline accepts
    /// (``Cycle/suppressed``). `leakgraph run` and `leakgraph test` exit with 1 when it is not 0.
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
