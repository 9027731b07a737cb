import LeakGraphModel
import LeakGraphReport

extension LeakReport {
    /// One leak family as the CI formats (JUnit, SARIF) report it: one finding per family.
    public struct Finding: Sendable, Equatable {
        /// The family.
        public var family: Family
        /// The family's leak trace (`Room.members[1] → Member.room → Room`), or its members' types.
        public var trace: String
        /// `Member.room`, the suspect reference, when the cycle has one.
        public var suspect: String?
        /// Why the suspect, in one sentence.
        public var reason: String?
        /// The fix, in one sentence.
        public var fix: String?
        /// The distinct types of the first cycle's members, as the report names them in full.
        public var leakedTypes: [String]
        /// Where the suspect's holder was made, or its closure formed: the first such object of the
        /// first cycle with a source file and line.
        public var location: SourceLocation?
        /// Where the other members of the first cycle were made (their creation sites with a line).
        public var relatedLocations: [SourceLocation]
        /// Where the family was found (``ReportNaming/foundIn(_:)-([LeakReport.Cycle])``).
        public var foundIn: String?
        /// The tests that made one of the family's cycles.
        public var tests: [String]
        /// For a known library leak or an accepted cycle: why it does not fail the check.
        public var excuse: String?
        /// The text report's section of the family.
        public var section: String
    }

    /// A source line a finding points at.
    public struct SourceLocation: Sendable, Equatable {
        /// The source file, as the creation stack names it (absolute when built with `-g`).
        public var file: String
        /// The line, from 1.
        public var line: Int
        /// The function of the frame.
        public var function: String
        /// The type of the object made there (shown name).
        public var type: String
    }

    /// One ``Finding`` per leak family, in ``families`` order.
    ///
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references, plus the text sections.
    public var findings: [Finding] {
        let families = self.families
        let sections = TextReport.familySections(families, of: self)
        let renderer = TextRenderer(report: self, pathLimit: TextReport.defaultPathLimit)
        return families.enumerated().map { offset, family in
            renderer.finding(family, section: sections[offset])
        }
    }
}

extension TextRenderer {
    /// The finding of `family` (see ``LeakReport/Finding``).
    func finding(_ family: LeakReport.Family, section: String) -> LeakReport.Finding {
        let cycle = report.cycles[family.representative]
        let members = cycle.members.compactMap { position[$0] }
        let edge = suspectEdge(of: cycle)
        var types: [String] = []
        for member in members where !types.contains(report.leaks[member].type) {
            types.append(report.leaks[member].type)
        }
        // Where the suspect's holder was made, or the closure formed (a closure context in the cycle).
        var candidates: [Int] = []
        if let edge {
            if report.leaks[edge.to].kind == ObjectKind.closureContext.rawValue { candidates.append(edge.to) }
            candidates.append(edge.from)
        }
        candidates += members
        let located = candidates.compactMap { location(of: $0) }
        let familyCycles = family.cycles.map { report.cycles[$0] }
        var tests: [String] = []
        for test in familyCycles.flatMap({ $0.tests ?? [] }) where !tests.contains(test) {
            tests.append(test)
        }
        var related: [LeakReport.SourceLocation] = []
        for site in located.dropFirst() where site != located.first && !related.contains(site) {
            related.append(site)
        }
        return LeakReport.Finding(
            family: family, trace: shape(of: cycle, members: members), suspect: edge.map(stepText),
            reason: cycle.suspect.map { Self.sentence($0.reason) }, fix: cycle.suspect.map { Self.sentence($0.hint) },
            leakedTypes: types, location: located.first, relatedLocations: related,
            foundIn: ReportNaming.foundIn(familyCycles), tests: tests,
            excuse: cycle.knownLibraryLeak
                ?? cycle.suppressed.map {
                    "accepted by the baseline: \($0.entry)" + ($0.reason.map { " — \($0)" } ?? "")
                },
            section: section)
    }

    /// The creation site of the leak at `position` (the frame ``ReportNaming/creationSite(_:)`` places:
    /// the first with a real file and line that is not compiler-generated), when there is one.
    func location(of position: Int) -> LeakReport.SourceLocation? {
        let leak = report.leaks[position]
        guard let frame = ReportNaming.placedFrame(leak.backtrace), let file = frame.file, let line = frame.line else {
            return nil
        }
        return LeakReport.SourceLocation(file: file, line: line, function: frame.function, type: typeText(position))
    }
}
