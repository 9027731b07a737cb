extension LeakReport.Cycle {
    /// How a baseline accepted a root cycle (``LeakReport/Cycle/suppressed``): the JSON object
    /// `{ "baseline": …, "entry": …, "line": …, "reason": … }`.
    public struct Suppression: Sendable, Codable, Equatable {
        /// The baseline file, as the command line named it.
        public var baseline: String
        /// The entry that matched, as the file writes it: `fingerprint: …`, `type: …` or `site: …`.
        public var entry: String
        /// The entry's line in the file (1-based), when it was read from one.
        public var line: Int?
        /// The entry's reason, when it has one.
        public var reason: String?

        /// Creates a suppression.
        public init(baseline: String, entry: String, line: Int? = nil, reason: String? = nil) {
            self.baseline = baseline
            self.entry = entry
            self.line = line
            self.reason = reason
        }

        /// The suppression by `entry` of `baseline`.
        public init(_ entry: BaselineEntry, of baseline: Baseline) {
            self.init(baseline: baseline.source, entry: entry.text, line: entry.line, reason: entry.reason)
        }
    }
}

extension LeakReport {
    /// The report with every root cycle `baseline` accepts marked ``Cycle/suppressed``, by the first
    /// entry that matches (``Baseline/entry(matching:memberTypes:memberBacktraces:)``: the cycle's
    /// fingerprint, its members' types, its members' creation frames).
    ///
    /// Nothing is removed: a suppressed cycle stays in the report with what it holds, and what it holds
    /// (held objects and held cycles) is accepted with it. Known library leaks are left as they are (the
    /// built-in baseline already excuses them); cycles they hold (`heldByKnownLibraryLeak`) are the
    /// checked code's own and may be accepted like any other. Marks of an earlier baseline are replaced:
    /// applying is a function of the report's leaks and `baseline` alone.
    ///
    /// - Complexity: O(*n* + *e*) plus matching each cycle against the entries.
    public func applying(_ baseline: Baseline) -> LeakReport {
        var result = self
        let index = ReportIndex(self)
        for position in result.cycles.indices {
            result.cycles[position].suppressed = nil
            let cycle = result.cycles[position]
            guard cycle.knownLibraryLeak == nil else { continue }
            let members = cycle.members.compactMap { index.position[$0] }
            let entry = baseline.entry(
                matching: cycle.fingerprint, memberTypes: members.map { leaks[$0].type },
                memberBacktraces: { members.map { leaks[$0].backtrace } })
            result.cycles[position].suppressed = entry.map { Cycle.Suppression($0, of: baseline) }
        }
        return result
    }
}
