import Foundation
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport
import LeakGraphTestSupport
import Testing

/// A user's cycle held by XCTest's root suite is reported as a root cycle of its own (issue 12, item 7).
@Suite("Cycles held by a known library leak")
struct HeldByKnownLeakTests {
    /// 0 XCTestSuite ⇄ 1 XCTestSuiteRun (the known leak) → 2 a test case ⇄ 3 its XCTestCaseRun (XCTest's
    /// own links) → 4 Container ⇄ 5 Part.
    static var report: LeakReport {
        var graph = ObjectGraph(trackedObjects: 6)
        let nodes: [(String, Int)] = [
            ("XCTest.XCTestSuite", 1), ("XCTest.XCTestSuiteRun", 1), ("App.ServiceTests", 2),
            ("XCTest.XCTestCaseRun", 1), ("App.Container", 2), ("App.Part", 1),
        ]
        for (index, node) in nodes.enumerated() {
            graph.addNode(ObjectNode(address: 0x1000 + 0x40 * UInt64(index), typeName: node.0, kind: .class, size: 32, retainCount: node.1))
        }
        graph.addReference(from: 0, to: 1, path: path("testRun"))
        graph.addReference(from: 1, to: 0, path: path("test"))
        graph.addReference(from: 0, to: 2, path: path("tests[0]"))
        graph.addReference(from: 2, to: 3, path: path("testRun"))
        graph.addReference(from: 3, to: 2, path: path("test"))
        graph.addReference(from: 2, to: 4, path: path("container"))
        graph.addReference(from: 4, to: 5, path: path("part"))
        graph.addReference(from: 5, to: 4, path: path("owner"))
        return LeakReport(analysis: LeakAnalysis.analyze(graph), program: .init(path: "/t", arguments: [], exitStatus: 0))
    }

    @Test("the held cycle is a root cycle with its own suspect and fingerprint, and counts as the user's")
    func heldCycle() throws {
        let report = Self.report
        #expect(report.cycles.count == 2 && report.summary.rootCycles == 2)
        let library = report.cycles[0]
        let user = report.cycles[1]
        #expect(library.knownLibraryLeak != nil && library.heldByKnownLibraryLeak == nil)
        #expect(library.members.map { report.leaks[$0].type } == ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"])
        #expect(library.holds.map { report.leaks[$0].type } == ["App.ServiceTests", "XCTest.XCTestCaseRun"])
        #expect(user.knownLibraryLeak == nil && user.heldByKnownLibraryLeak == library.id)
        #expect(user.members.map { report.leaks[$0].type } == ["App.Container", "App.Part"])
        #expect(user.suspect?.label == "owner" && user.fingerprint != nil && user.fingerprint != library.fingerprint)
        #expect(report.leakedObjectsOutsideLibraries == 2)

        let json = try report.jsonData(prettyPrinted: false)
        #expect(String(decoding: json, as: UTF8.self).contains("\"heldByKnownLibraryLeak\":0"))
        #expect(try LeakReport.decode(from: json) == report)
        let text = TextReport.render(report)
        #expect(text.contains("ROOT CYCLE #2: 2 objects, 64 bytes\n   Held by a known library leak (root cycle #1)"))
    }
}
