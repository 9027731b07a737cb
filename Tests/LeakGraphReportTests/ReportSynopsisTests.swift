import Foundation
import LeakGraphReport
import Testing

@Suite("Report synopsis")
struct ReportSynopsisTests {
    /// A report with one known library cycle (two objects) and one of the program's (two objects).
    private let report = LeakReport(
        program: .init(path: "/bin/app", arguments: ["a b", "ü"], exitStatus: 3),
        summary: .init(trackedObjects: 9, liveObjects: 8, leakedObjects: 4, leakedBytes: 64, rootCycles: 2),
        leaks: (0..<4).map { id in
            LeakReport.Leak(
                id: id, address: "0x\(id)", type: id < 2 ? "XCTest.XCTestSuite" : "App.A", kind: "class", size: 16,
                retainCount: 1, cycle: id / 2, backtrace: [])
        },
        references: [],
        cycles: [
            .init(id: 0, members: [0, 1], holds: [], knownLibraryLeak: "known leak in swift-corelibs-xctest: …"),
            .init(id: 1, members: [2, 3], holds: []),
        ])

    @Test("holds the program, the totals and what a check fails on, and reads back from its JSON")
    func roundTrip() throws {
        let synopsis = ReportSynopsis(report, rendered: ["text"])
        #expect(synopsis.program == report.program)
        #expect(synopsis.summary == report.summary)
        #expect(synopsis.leakedObjectsOutsideLibraries == 2)
        #expect(synopsis.rendered == ["text"])
        #expect(ReportSynopsis.decode(from: try synopsis.jsonData()) == synopsis)
    }

    @Test("a synopsis of another version, or not a synopsis, reads as none")
    func otherVersions() throws {
        var synopsis = ReportSynopsis(report)
        synopsis.version = ReportSynopsis.currentVersion + 1
        #expect(ReportSynopsis.decode(from: try synopsis.jsonData()) == nil)
        #expect(ReportSynopsis.decode(from: try report.jsonData(prettyPrinted: false)) == nil)
        #expect(ReportSynopsis.decode(from: Data("{".utf8)) == nil)
    }
}
