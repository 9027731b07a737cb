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
    /// A fingerprint `keeping` already lists keeps its reason; a new one is described by its leak trace
    /// and the first member's creation site (`Screen.presenter → Presenter.delegate → Screen, created at
    /// main.swift:12`). Fingerprints of `keeping` that this report no longer has are dropped, so writing
    /// over the baseline a run was checked with brings it up to date. Cycles without a fingerprint (reports
    /// written before fingerprints) cannot be listed.
    ///
    /// - Parameters:
    ///   - report: The report whose leaks to accept.
    ///   - source: How the new baseline names its file.
    ///   - keeping: The baseline the report was checked with, if any.
    /// - Complexity: O(*n* + *e*) for the report's leaks and references, plus matching the patterns.
    public static func accepting(_ report: LeakReport, source: String, keeping old: Baseline? = nil) -> Baseline {
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
        let renderer = TextRenderer(report: report, pathLimit: 1)
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
            let reason = oldReasons[fingerprint] ?? renderer.acceptanceReason(ordinal)
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

extension TextRenderer {
    /// What a new baseline entry says about the cycle at `ordinal`: its leak trace (or its member types
    /// when it has no suspect) and the first member's creation site.
    func acceptanceReason(_ ordinal: Int) -> String {
        let cycle = report.cycles[ordinal]
        let members = cycle.members.compactMap { position[$0] }
        var trace: String?
        if let edge = suspectEdge(of: cycle), let steps = ring(closedBy: edge, members: members) {
            let start = startOfRing(steps)
            trace = ringText(Array(steps[start...] + steps[..<start]), suspect: steps.count - 1 - start)
        }
        let text = trace ?? members.prefix(4).map { typeText($0) }.joined(separator: ", ")
        guard let first = members.first, let site = ReportNaming.creationSite(report.leaks[first].backtrace) else {
            return text
        }
        return text + (site.place == nil ? ", created in \(site.function)" : ", created at \(site.text)")
    }
}
