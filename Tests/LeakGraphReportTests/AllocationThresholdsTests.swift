import Foundation
import LeakGraphRender
import LeakGraphReport
import Testing

@Suite("Allocation thresholds")
struct AllocationThresholdsTests {
    static let recorded = [
        TestAllocations(test: "RenderTests/testRender", run: "XCTest", allocations: AllocationFixtures.profile),
        TestAllocations(
            test: "Suite/cheap()", allocations: AllocationProfile(sites: [AllocationFixtures.site("App.Tiny", "App.tiny()", 1, objects: 2, bytes: 32)])),
    ]

    @Test("written and read back: version first, tests by name, each with its sites")
    func roundTrip() throws {
        let thresholds = AllocationThresholds(recording: Self.recorded, tolerancePercent: 5)
        let text = thresholds.text
        #expect(text.hasPrefix("{\n  \"leakgraphAllocationThresholds\" : 1,\n"), "\(text)")
        #expect(text.contains("\"test\" : \"RenderTests/testRender\""))
        #expect(text.contains("\"key\" : \"App.Widget @ Widgets.swift:9 in App.makeWidgets(Swift.Int) -> [App.Widget]\""))
        let read = try AllocationThresholds.parse(Data(text.utf8))
        #expect(read == thresholds)
        #expect(read.tests.map(\.test) == ["RenderTests/testRender", "Suite/cheap()"])
        #expect(read.tests.first?.objects == 119)
    }

    @Test("bad files: one sentence each", arguments: [
        ("[1, 2]", "it is not a JSON object"),
        ("{\"tests\": []}", "it is not an allocation thresholds file (no \"leakgraphAllocationThresholds\" version)"),
        ("{\"leakgraphAllocationThresholds\": 2, \"tests\": []}", "it has version 2; this leakgraph reads up to version 1"),
        ("{\"leakgraphAllocationThresholds\": 1, \"tolerancePercent\": 0, \"tests\": [{\"test\": \"a\", \"sites\": []}]}", "\"objects\" is missing at tests[0]"),
    ])
    func badFiles(_ pair: (String, String)) {
        #expect(throws: AllocationThresholds.ReadError.self) { try AllocationThresholds.parse(Data(pair.0.utf8)) }
        do {
            _ = try AllocationThresholds.parse(Data(pair.0.utf8))
        } catch {
            #expect(error.description == pair.1)
        }
    }

    @Test("a test over its recorded count plus the tolerance fails, naming the sites that grew; within it, or unrecorded, does not")
    func check() throws {
        let thresholds = AllocationThresholds(recording: Self.recorded, tolerancePercent: 10)
        #expect(thresholds.limit(forRecorded: 119) == 131)
        #expect(thresholds.limit(forRecorded: 119, tolerancePercent: 0) == 119)
        var grown = AllocationFixtures.profile.sites
        grown[0].objects += 12
        grown.append(AllocationFixtures.site("App.Cache", "App.Cache.init() -> App.Cache", 3, objects: 1, bytes: 64))
        let now = [
            TestAllocations(test: "RenderTests/testRender", run: "XCTest", allocations: AllocationProfile(sites: grown)),
            TestAllocations(test: "Suite/cheap()", allocations: AllocationProfile(sites: [AllocationFixtures.site("App.Tiny", "App.tiny()", 1, objects: 2, bytes: 32)])),
            TestAllocations(test: "Suite/new()", allocations: .empty),
        ]
        let verdict = thresholds.check(now)
        #expect(verdict.checked == 2)
        #expect(verdict.unrecorded == ["Suite/new()"])
        let excess = try #require(verdict.excesses.first)
        #expect(verdict.excesses.count == 1)
        #expect(excess.objects == 132 && excess.limit == 131 && excess.recorded == 119)
        #expect(excess.text == """
            RenderTests/testRender (XCTest): 132 objects allocated, over its limit of 131 (recorded 119); grew:
              +12 Widget at Widgets.swift:9 in makeWidgets(_:) (110 → 122)
              +1 Cache at Widgets.swift:3 in Cache.init() (0 → 1, new)
            """)
        #expect(thresholds.check(now, tolerancePercent: 11).excesses.isEmpty, "the command line's tolerance wins")
    }

    @Test("per-test counts survive the JSON report and combining marks their runs")
    func inReports() throws {
        var report = ReportFixtures.cleanReport
        report.testAllocations = [TestAllocations(test: "T/t", allocations: AllocationFixtures.profile)]
        #expect(try LeakReport.decode(from: report.jsonData()).testAllocations == report.testAllocations)
        let combined = LeakReport(combining: [.init(name: "XCTest", report: report), .init(name: "Swift Testing", report: report)], program: report.program)
        #expect(combined.testAllocations?.map(\.run) == ["XCTest", "Swift Testing"])
        #expect(TextReport.body(combined).contains("ALLOCATIONS BY TEST (2 tests)"))
        #expect(TextReport.body(combined).contains("T/t (XCTest): Widget × 110 at Widgets.swift:9 in makeWidgets(_:)"))
    }
}
