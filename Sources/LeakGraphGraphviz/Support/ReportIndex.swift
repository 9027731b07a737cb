import LeakGraphReport

/// Lookups over one ``LeakReport`` that every renderer of this module needs: leak id → position, the
/// references leaving each object, and the names and creation sites shown for objects.
///
/// Built once per rendering; a pure function of the report.
struct ReportIndex {
    /// The report.
    let report: LeakReport
    /// Leak id → position in `report.leaks` (the first leak with that id).
    let position: [Int: Int]
    /// Per leak position: the indices in `report.references` of the references leaving it, in report order.
    let outgoing: [[Int]]
    /// Full type name → the name shown.
    let displayName: [String: String]

    /// Indexes `report`.
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references.
    init(_ report: LeakReport) {
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
        self.position = position
        self.outgoing = outgoing
        self.displayName = ReportNaming.displayNames(for: report.leaks.map(\.type))
    }

    /// The positions of `ids` that exist in the report, in the given order, each once.
    func positions(of ids: [Int]) -> [Int] {
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
    func typeName(_ index: Int) -> String {
        let type = report.leaks[index].type
        return displayName[type] ?? type
    }

    /// Positions of leaks listed in no cycle (as members or held objects), in report order.
    var unlistedPositions: [Int] {
        var listed = [Bool](repeating: false, count: report.leaks.count)
        for cycle in report.cycles {
            for id in cycle.members + cycle.holds {
                if let index = position[id] { listed[index] = true }
            }
        }
        return report.leaks.indices.filter { !listed[$0] }
    }
}
