import LeakGraphReport

/// The text of the root cycles a baseline accepts: one verdict line at the start of the body and a
/// section at the end that counts them per entry, instead of their leak traces.
///
/// ```
/// 1 new leak, 1 suppressed by the baseline (root cycles).
/// …
/// Suppressed (baseline): 1 root cycle, 7 objects, 336 bytes — reported, not failing the check
///    type: Fixture.ImageCache*  (leakgraph.baseline, line 4): 1 root cycle (#2), 7 objects, 336 bytes — the cache lives for the whole process
/// ```
extension TextRenderer {
    /// `N new leaks, M suppressed by the baseline.`: new root cycles are those neither accepted nor known
    /// library leaks.
    func baselineVerdict(suppressed: Int) -> String {
        let new = report.cycles.filter { !$0.isExcused }.count
        return "\(ReportNaming.count(new, "new leak")), \(ReportNaming.grouped(suppressed)) suppressed by the baseline "
            + "(root cycles)."
    }

    /// Appends the `Suppressed (baseline)` section for the cycles at `ordinals` (each suppressed): the
    /// totals, then one line per entry that matched, in the order of the first cycle each accepted.
    mutating func renderSuppressed(_ ordinals: [Int]) {
        struct Group {
            var suppression: LeakReport.Cycle.Suppression
            var ordinals: [Int] = []
            var objects = 0
            var bytes = 0
        }
        var groups: [Group] = []
        for ordinal in ordinals {
            let cycle = report.cycles[ordinal]
            guard let suppression = cycle.suppressed else { continue }
            let positions = (cycle.members + cycle.holds).compactMap { position[$0] }
            let bytes = positions.reduce(0) { $0 + report.leaks[$1].size }
            let group: Int
            if let found = groups.firstIndex(where: { $0.suppression == suppression }) {
                group = found
            } else {
                groups.append(Group(suppression: suppression))
                group = groups.count - 1
            }
            groups[group].ordinals.append(ordinal)
            groups[group].objects += positions.count
            groups[group].bytes += bytes
        }
        let objects = groups.reduce(0) { $0 + $1.objects }
        let bytes = groups.reduce(0) { $0 + $1.bytes }
        lines.append(
            "Suppressed (baseline): \(ReportNaming.count(ordinals.count, "root cycle")), "
                + "\(ReportNaming.count(objects, "object")), \(ReportNaming.count(bytes, "byte")) — reported, not failing the check"
        )
        for group in groups {
            let place =
                group.suppression.line.map { "\(group.suppression.baseline), line \($0)" } ?? group.suppression.baseline
            let numbers =
                group.ordinals.prefix(10).map { "#\($0 + 1)" }.joined(separator: ", ")
                + (group.ordinals.count > 10 ? ", …" : "")
            var line =
                "   \(group.suppression.entry)  (\(place)): \(ReportNaming.count(group.ordinals.count, "root cycle")) "
                + "(\(numbers)), \(ReportNaming.count(group.objects, "object")), \(ReportNaming.count(group.bytes, "byte"))"
            if let reason = group.suppression.reason {
                line += " — " + reason
            }
            lines.append(line)
        }
    }
}

extension Baseline {
    /// A baseline that accepts every leak of `report` (``LeakGraphReport/Baseline/accepting(_:source:keeping:describing:)``),
    /// each new entry described by its leak trace and the first member's creation site
    /// (`Screen.presenter → Presenter.delegate → Screen, created at main.swift:12`).
    ///
    /// - Parameters:
    ///   - report: The report whose leaks to accept.
    ///   - source: How the new baseline names its file.
    ///   - keeping: The baseline the report was checked with, if any.
    public static func accepting(_ report: LeakReport, source: String, keeping old: Baseline? = nil) -> Baseline {
        let renderer = TextRenderer(report: report, pathLimit: 1)
        return accepting(report, source: source, keeping: old) { renderer.acceptanceReason($0) }
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
