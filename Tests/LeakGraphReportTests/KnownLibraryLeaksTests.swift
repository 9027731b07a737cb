import LeakGraphReport
import Testing

@Suite("Known library leaks")
struct KnownLibraryLeaksTests {
    @Test("XCTest's root suite ⇄ run cycle is recognised by its member types, whatever else it holds")
    func xctestCycle() {
        let match = KnownLibraryLeaks.match(memberTypes: ["XCTest.XCTestSuiteRun", "XCTest.XCTestSuite"])
        #expect(match?.hasPrefix("known leak in swift-corelibs-xctest") == true)
        #expect(KnownLibraryLeaks.match(memberTypes: ["XCTest.XCTestSuite", "MyApp.Node"]) == nil)
        #expect(KnownLibraryLeaks.match(memberTypes: ["MyApp.XCTestSuite", "MyApp.XCTestSuiteRun"]) == nil)
    }

    @Test("a Timer alone is swift-corelibs-foundation's leak; a cycle of the program's objects with a Timer is the program's")
    func timer() {
        #expect(KnownLibraryLeaks.match(memberTypes: ["Foundation.Timer"])?.hasPrefix("known leak in swift-corelibs-foundation") == true)
        #expect(KnownLibraryLeaks.match(memberTypes: ["Foundation.Timer", "Foundation.Timer"]) != nil)
        #expect(KnownLibraryLeaks.match(memberTypes: ["MyApp.Poller", "Foundation.Timer"]) == nil)
    }

    @Test("objects in known library cycles do not count towards what a check fails on")
    func outsideLibraries() {
        func leak(_ id: Int, _ type: String) -> LeakReport.Leak {
            LeakReport.Leak(
                id: id, address: "0x\(id)", type: type, kind: "class", size: 16, retainCount: 1, cycle: id < 3 ? 0 : 1,
                backtrace: [])
        }
        var report = LeakReport(
            program: .init(path: "/t", arguments: [], exitStatus: 0),
            summary: .init(trackedObjects: 9, liveObjects: 9, leakedObjects: 5, leakedBytes: 80, rootCycles: 2),
            leaks: [
                leak(0, "XCTest.XCTestSuite"), leak(1, "XCTest.XCTestSuiteRun"), leak(2, "T.Case"),
                leak(3, "MyApp.A"), leak(4, "MyApp.B"),
            ],
            references: [],
            cycles: [
                .init(id: 0, members: [0, 1], holds: [2], knownLibraryLeak: "known leak in swift-corelibs-xctest: …"),
                .init(id: 1, members: [3, 4], holds: []),
            ])
        #expect(report.leakedObjectsOutsideLibraries == 2)
        report.cycles[1].knownLibraryLeak = "x"
        #expect(report.leakedObjectsOutsideLibraries == 0)
    }
}

