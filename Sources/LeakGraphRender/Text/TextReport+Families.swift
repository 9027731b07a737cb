import LeakGraphReport

/// The text of leak families and of known library leaks.
///
/// A family of several root cycles (one fingerprint, ``LeakReport/Family``) is one section: its first
/// cycle's number with the others' (`ROOT CYCLE #2 and 2 more like it (#5, #9): …`), every test that
/// made one, and the first cycle's leak trace and objects. Known library leaks are one line each:
///
/// ```
/// KNOWN LIBRARY LEAKS (not your code; reported, not failing): 1 root cycle, 22 objects, 1,450 bytes
///    #1 XCTestSuite.testRun → XCTestSuiteRun.test → XCTestSuite — known leak in swift-corelibs-xctest (2 objects, holds 20)
/// ```
extension TextRenderer {
    /// The most other cycle numbers named in a family's title.
    static let familyNumberLimit = 10

    /// `and 2 more like it (#5, #9): 3 root cycles, 12 objects, 555 bytes in all (4 objects, 185 bytes
    /// in #2)`.
    func familyTitle(_ family: LeakReport.Family, members: String) -> String {
        let others = family.cycles.dropFirst()
        var numbers = others.prefix(Self.familyNumberLimit).map { "#\($0 + 1)" }.joined(separator: ", ")
        if others.count > Self.familyNumberLimit {
            numbers += ", …"
        }
        return "and \(ReportNaming.grouped(others.count)) more like it (\(numbers)): "
            + "\(ReportNaming.count(family.cycles.count, "root cycle")), \(ReportNaming.count(family.objects, "object")), "
            + "\(ReportNaming.count(family.bytes, "byte")) in all (\(members) in #\(family.representative + 1))"
    }

    /// Appends the section of `family`: its first cycle, titled for all of them.
    mutating func renderFamily(_ family: LeakReport.Family) {
        renderCycle(report.cycles[family.representative], ordinal: family.representative, family: family)
    }

    /// Appends the section of the known library leaks: a title with the totals, then one line per family.
    mutating func renderKnownLibraryLeaks(_ families: [LeakReport.Family]) {
        let cycles = families.reduce(0) { $0 + $1.cycles.count }
        let objects = families.reduce(0) { $0 + $1.objects }
        let bytes = families.reduce(0) { $0 + $1.bytes }
        lines.append(
            "KNOWN LIBRARY LEAKS (not your code; reported, not failing): \(ReportNaming.count(cycles, "root cycle")), "
                + "\(ReportNaming.count(objects, "object")), \(ReportNaming.count(bytes, "byte")) (--expand shows them in full)"
        )
        for family in families {
            let cycle = report.cycles[family.representative]
            let members = cycle.members.compactMap { position[$0] }
            var numbers = "#\(family.representative + 1)"
            if family.cycles.count > 1 {
                numbers += " and \(ReportNaming.grouped(family.cycles.count - 1)) more like it"
            }
            let library =
                cycle.knownLibraryLeak.map { $0.split(separator: ":", maxSplits: 1).first.map(String.init) ?? $0 } ?? ""
            let held = family.objects - members.count * family.cycles.count
            let sizes =
                family.cycles.count > 1
                ? "\(ReportNaming.count(family.objects, "object")) in all"
                : "\(ReportNaming.count(members.count, "object"))\(held > 0 ? ", holds \(ReportNaming.grouped(held))" : "")"
            lines.append("   \(numbers) \(shape(of: cycle, members: members)) — \(library) (\(sizes))")
        }
    }

    /// The ring of `cycle` as its leak trace writes it, or its members' types.
    func shape(of cycle: LeakReport.Cycle, members: [Int]) -> String {
        if let edge = suspectEdge(of: cycle), let steps = ring(closedBy: edge, members: members) {
            let start = startOfRing(steps)
            return ringText(Array(steps[start...] + steps[..<start]), suspect: steps.count - 1 - start)
        }
        return members.prefix(4).map { typeText($0) }.joined(separator: ", ") + (members.count > 4 ? ", …" : "")
    }
}
