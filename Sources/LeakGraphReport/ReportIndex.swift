/// Lookups over one ``LeakReport`` that every renderer (text, DOT, SVG, HTML) needs: leak id → position,
/// the references leaving each object, and the names shown for objects.
///
/// Built once per rendering; a pure function of the report.
package struct ReportIndex: Sendable {
    /// The report.
    package let report: LeakReport
    /// Leak id → position in `report.leaks` (the first leak with that id).
    package let position: [Int: Int]
    /// Per leak position: the indices in `report.references` of the references leaving it whose target is
    /// a leak of the report, in report order.
    package let outgoing: [[Int]]
    /// Full type name → the name shown (``ReportNaming/displayNames(for:)``).
    package let displayName: [String: String]
    /// Per leak position: a number shared by the members of one held cycle (``LeakReport/Cycle/heldCycles``),
    /// unique across the report, or -1 for an object in no held cycle.
    package let heldCycle: [Int]

    /// Indexes `report`.
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references.
    package init(_ report: LeakReport) {
        self.report = report
        var position: [Int: Int] = [:]
        position.reserveCapacity(report.leaks.count)
        for (index, leak) in report.leaks.enumerated() where position[leak.id] == nil {
            position[leak.id] = index
        }
        var outgoing = [[Int]](repeating: [], count: report.leaks.count)
        for (index, reference) in report.references.enumerated() {
            if let from = position[reference.from], position[reference.to] != nil {
                outgoing[from].append(index)
            }
        }
        var heldCycle = [Int](repeating: -1, count: report.leaks.count)
        var number = 0
        for cycle in report.cycles {
            for members in cycle.heldCycles ?? [] {
                for id in members {
                    if let index = position[id] { heldCycle[index] = number }
                }
                number += 1
            }
        }
        self.heldCycle = heldCycle
        self.position = position
        self.outgoing = outgoing
        self.displayName = ReportNaming.displayNames(for: report.leaks.map(\.type))
    }

    /// The positions of `ids` that exist in the report, in the given order, each once.
    package func positions(of ids: [Int]) -> [Int] {
        var seen = Set<Int>()
        var result: [Int] = []
        result.reserveCapacity(ids.count)
        for id in ids {
            if let index = position[id], seen.insert(index).inserted {
                result.append(index)
            }
        }
        return result
    }

    /// The shown name of the object at `index`.
    package func typeName(_ index: Int) -> String {
        let type = report.leaks[index].type
        return displayName[type] ?? type
    }

    /// Positions of leaks listed in no cycle (as members or held objects), in report order.
    package var unlistedPositions: [Int] {
        var listed = [Bool](repeating: false, count: report.leaks.count)
        for cycle in report.cycles {
            for id in cycle.members + cycle.holds {
                if let index = position[id] { listed[index] = true }
            }
        }
        return report.leaks.indices.filter { !listed[$0] }
    }

    /// The index in `report.references` of the suspect reference of `cycle`, when it has one that names a
    /// reference between two leaks of the report.
    package func suspectReference(of cycle: LeakReport.Cycle) -> Int? {
        cycle.suspect.flatMap(referenceIndex(of:))
    }

    /// The index in `report.references` of `suspect` (the suspect or another cut), when it names a
    /// reference between two leaks of the report.
    package func referenceIndex(of suspect: LeakReport.Suspect) -> Int? {
        guard let reference = suspect.reference, report.references.indices.contains(reference),
            position[report.references[reference].from] != nil, position[report.references[reference].to] != nil
        else { return nil }
        return reference
    }
}
