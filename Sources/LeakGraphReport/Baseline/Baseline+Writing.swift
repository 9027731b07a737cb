extension Baseline {
    /// The comment that starts a baseline file ``accepting(_:source:keeping:)`` writes from scratch.
    public static let defaultHeaderComments = [
        "LeakGraph baseline: leaks accepted in this repository. `leakgraph run --baseline FILE` fails only on",
        "leaks not accepted here. One entry a line — `fingerprint: HEX`, `type: PATTERN` or `site: PATTERN`,",
        "`*` and `?` as wildcards — then `# reason`. Format: docs/baselines.md in LeakGraph.",
    ]

    /// A baseline that accepts every leak of `report`: `keeping`'s `type:` and `site:` entries as they
    /// are, then one `fingerprint:` entry per distinct fingerprint of the report's root cycles that are
    /// not known library leaks and that no such pattern entry accepts, in report order.
    ///
    /// A fingerprint `keeping` already lists keeps its reason; a new one is described by `describe`
    /// (`LeakGraphRender`'s `accepting(_:source:keeping:)` passes the cycle's leak trace and its first
    /// member's creation site). Fingerprints of `keeping` that this report no longer has are dropped, so
    /// writing over the baseline a run was checked with brings it up to date. Cycles without a fingerprint
    /// (reports written before fingerprints) cannot be listed.
    ///
    /// - Parameters:
    ///   - report: The report whose leaks to accept.
    ///   - source: How the new baseline names its file.
    ///   - keeping: The baseline the report was checked with, if any.
    ///   - describe: The reason written for a new entry, given the position of its root cycle in
    ///     `report.cycles`.
    /// - Complexity: O(*n* + *e*) for the report's leaks and references, plus matching the patterns and
    ///   `describe`.
    public static func accepting(
        _ report: LeakReport, source: String, keeping old: Baseline? = nil, describing describe: (Int) -> String
    ) -> Baseline {
        let patterns = (old?.entries ?? []).filter {
            if case .fingerprint = $0.rule { return false }
            return true
        }
        var oldReasons: [String: String] = [:]
        for entry in old?.entries ?? [] {
            if case .fingerprint(let fingerprint) = entry.rule, let reason = entry.reason,
                oldReasons[fingerprint] == nil
            {
                oldReasons[fingerprint] = reason
            }
        }
        let patternBaseline = Baseline(source: source, entries: patterns)
        let index = ReportIndex(report)
        var seen: Set<String> = []
        var entries = patterns.map { entry in
            var entry = entry
            entry.line = nil
            return entry
        }
        for (ordinal, cycle) in report.cycles.enumerated() {
            guard cycle.knownLibraryLeak == nil, let fingerprint = cycle.fingerprint, !seen.contains(fingerprint) else {
                continue
            }
            let members = cycle.members.compactMap { index.position[$0] }
            let covered = patternBaseline.entry(
                matching: fingerprint, memberTypes: members.map { report.leaks[$0].type },
                memberBacktraces: { members.map { report.leaks[$0].backtrace } })
            guard covered == nil else { continue }
            seen.insert(fingerprint)
            let reason = oldReasons[fingerprint] ?? describe(ordinal)
            entries.append(BaselineEntry(.fingerprint(fingerprint), reason: reason))
        }
        let header = old.map(\.headerComments).flatMap { $0.isEmpty ? nil : $0 } ?? defaultHeaderComments
        return Baseline(source: source, entries: entries, headerComments: header)
    }

    /// The baseline as a file: the header comments, `version: N`, a blank line, then one entry a line,
    /// each with ` # reason` when it has one (line breaks in a reason become spaces). ``parse(_:source:)``
    /// reads it back to the same entries.
    public var text: String {
        var lines = headerComments.map { $0.isEmpty ? "#" : "# " + $0 }
        lines.append("version: \(version)")
        lines.append("")
        for entry in entries {
            var line = entry.text
            if let reason = entry.reason {
                let oneLine = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
                line += "  # " + oneLine
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
