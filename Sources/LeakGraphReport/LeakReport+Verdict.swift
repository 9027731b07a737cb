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
