import LeakGraphModel
import LeakGraphReport
import Testing

/// `LeakReport.confirmed(by:)`: a cycle is kept only when a second check finds each of its objects
/// leaked again with the same retain count and references.
@Suite("LeakReport.confirmed(by:)")
struct ReportConfirmationTests {
    /// A report of one two-object cycle A ⇄ B (addresses 0x10, 0x20), optionally with B also
    /// referencing a third leaked object C (0x30) that the cycle holds.
    func pair(retainCountOfB: Int = 1, bHoldsC: Bool = false, bLabel: String = "owner") -> LeakReport {
        var leaks = [
            LeakReport.Leak(id: 0, address: "0x10", type: "A", kind: "class", size: 32, retainCount: 1, cycle: 0, backtrace: []),
            LeakReport.Leak(id: 1, address: "0x20", type: "B", kind: "class", size: 32, retainCount: retainCountOfB, cycle: 0, backtrace: []),
        ]
        var references = [
            LeakReport.LeakReference(from: 0, to: 1, path: [.property("b")], ownership: .strong),
            LeakReport.LeakReference(from: 1, to: 0, path: [.property(bLabel)], ownership: .strong),
        ]
        if bHoldsC {
            leaks.append(LeakReport.Leak(id: 2, address: "0x30", type: "C", kind: "class", size: 16, retainCount: 1, cycle: 0, backtrace: []))
            references.append(LeakReport.LeakReference(from: 1, to: 2, path: [.property("cached")], ownership: .strong))
        }
        return LeakReport(
            program: LeakReport.Program(path: "/p", arguments: [], exitStatus: 0),
            summary: LeakReport.Summary(
                trackedObjects: 10, liveObjects: 10, leakedObjects: leaks.count, leakedBytes: leaks.reduce(0) { $0 + $1.size },
                rootCycles: 1),
            leaks: leaks, references: references,
            cycles: [LeakReport.Cycle(id: 0, members: [0, 1], holds: bHoldsC ? [2] : [], fingerprint: "f")])
    }

    let empty = LeakReport(
        program: LeakReport.Program(path: "/p", arguments: [], exitStatus: 0),
        summary: LeakReport.Summary(trackedObjects: 10, liveObjects: 10, leakedObjects: 0, leakedBytes: 0, rootCycles: 0),
        leaks: [], references: [], cycles: [])

    @Test("the same objects, counts and references confirm; anything changed or gone does not")
    func confirmation() {
        #expect(pair().confirmed(by: pair()).cycles.count == 1)
        #expect(pair().confirmed(by: empty).cycles.isEmpty, "no longer leaked")
        #expect(pair().confirmed(by: pair(retainCountOfB: 2)).cycles.isEmpty, "a retain count changed")
        #expect(pair().confirmed(by: pair(bLabel: "other")).cycles.isEmpty, "a reference changed")
        #expect(pair(bHoldsC: true).confirmed(by: pair()).cycles.isEmpty, "a held object is no longer leaked")
    }

    @Test("a reference to an object that was live at the first check and leaked at the second is not a change")
    func targetLeakedLater() {
        #expect(pair().confirmed(by: pair(bHoldsC: true)).cycles.count == 1)
    }
}
