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

    @Test("XCTest's measure {} cycle is the library's when its references close every loop; a loop of the test's own makes it the test's")
    func measureCycle() throws {
        let types = ["ProbeTests.SpeedTests", "XCTest.XCTestCaseRun", "XCTest.PerformanceMeter"]
        typealias Reference = KnownLibraryLeaks.CycleReference
        let library = [
            Reference(from: 0, to: 1, path: [.property("testRun"), .optionalPayload]),
            Reference(from: 1, to: 0, path: [.property("test"), .existentialValue(type: "ProbeTests.SpeedTests")]),
            Reference(from: 0, to: 2, path: [.property("_performanceMeter"), .optionalPayload]),
            Reference(from: 2, to: 0, path: [.property("delegate"), .existentialValue(type: "XCTest.XCTestCase")]),
        ]
        let match = try #require(KnownLibraryLeaks.match(memberTypes: types, references: { library }))
        #expect(match.hasPrefix("known leak in swift-corelibs-xctest: a test case that calls `measure {}`"))
        #expect(KnownLibraryLeaks.match(memberTypes: types) == nil, "without the references, never")
        // The test case's own closure capturing it closes a loop of the code's own.
        let ownLoop = library + [Reference(from: 0, to: 0, path: [.property("onTick"), .closureContext])]
        #expect(KnownLibraryLeaks.match(memberTypes: types, references: { ownLoop }) == nil)
        // A meter held by the code's own object is not the library's cycle either.
        let model = types + ["ProbeTests.Model"]
        let throughModel = library + [
            Reference(from: 3, to: 2, path: [.property("meter")]), Reference(from: 2, to: 3, path: [.property("model")]),
        ]
        #expect(KnownLibraryLeaks.match(memberTypes: model, references: { throughModel }) == nil)
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

