import LeakGraphRender
import LeakGraphReport
import Testing

/// `LeakReport(combining:program:)`: two runs' reports as one, ids renumbered, every cycle marked with its run.
@Suite struct CombinedReportTests {
    static let program = LeakReport.Program(path: "/p/PackageTests.xctest", arguments: [], exitStatus: 0)

    @Test func renumbersAndMarksEachRun() throws {
        let first = ReportFixtures.leakingReport
        let second = ReportFixtures.leakingReport
        let combined = LeakReport(
            combining: [.init(name: "XCTest", report: first), .init(name: "Swift Testing", report: second)],
            program: Self.program)
        #expect(combined.program == Self.program)
        #expect(combined.leaks.count == 2 * first.leaks.count)
        #expect(Set(combined.leaks.map(\.id)).count == combined.leaks.count)
        #expect(Set(combined.cycles.map(\.id)).count == combined.cycles.count)
        #expect(combined.summary.leakedObjects == 2 * first.summary.leakedObjects)
        #expect(combined.summary.rootCycles == 2 * first.summary.rootCycles)
        #expect(combined.cycles.map(\.run) == Array(repeating: "XCTest", count: first.cycles.count)
            + Array(repeating: "Swift Testing", count: second.cycles.count))
        #expect(combined.cycles.map(\.fingerprint) == (first.cycles + second.cycles).map(\.fingerprint))

        // The second run's part reads exactly as its own report once its ids are shifted back.
        let leakShift = combined.leaks[first.leaks.count].id - second.leaks[0].id
        let cycleShift = combined.cycles[first.cycles.count].id - second.cycles[0].id
        for (index, cycle) in second.cycles.enumerated() {
            let moved = combined.cycles[first.cycles.count + index]
            #expect(moved.members == cycle.members.map { $0 + leakShift })
            #expect(moved.holds == cycle.holds.map { $0 + leakShift })
            #expect(moved.id == cycle.id + cycleShift)
            #expect(moved.suspect?.from == cycle.suspect.map { $0.from + leakShift })
            #expect(moved.suspect?.reference == cycle.suspect?.reference.map { $0 + first.references.count })
            if let reference = moved.suspect?.reference {
                #expect(combined.references[reference].label == moved.suspect?.label)
            }
        }
        for (index, leak) in second.leaks.enumerated() {
            let moved = combined.leaks[first.leaks.count + index]
            #expect(moved.cycle == leak.cycle.map { $0 + cycleShift })
            #expect(moved.proof?.inEdges == leak.proof?.inEdges.map { $0 + leakShift })
        }
        #expect(try LeakReport.decode(from: combined.jsonData(prettyPrinted: false)) == combined)
        let text = TextReport.render(combined)
        #expect(text.contains("   Found in the XCTest run"))
        #expect(text.contains("   Found in the Swift Testing run"))
    }

    @Test func singleRunReportsSayNoRun() {
        #expect(!TextReport.render(ReportFixtures.leakingReport).contains("Found in the"))
        let combined = LeakReport(combining: [.init(name: "XCTest", report: ReportFixtures.cleanReport)], program: Self.program)
        #expect(combined.leaks.isEmpty && combined.cycles.isEmpty)
    }
}
