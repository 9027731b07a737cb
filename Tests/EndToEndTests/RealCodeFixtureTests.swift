import LeakGraphReport
import Testing

// Minimal reproductions of what running real packages' test suites under LeakGraph found
// (docs/validation.md): three ways the checker used to crash the program or itself, and the one real
// leak those suites showed (in swift-corelibs-xctest). Each must now check cleanly, in debug and release.

@Suite("Found on real code", .timeLimit(.minutes(10)))
struct RealCodeFixtureTests {
    /// What RealCodeNSURLBridge leaks, under `leakgraph run` and in-process alike.
    static let urlBridgingLeak = LeakExpectation([
        CycleShape(
            members: ["Fixture.Bookmark", "Fixture.Folder"],
            holds: ["FoundationEssentials._SwiftURL", "FoundationEssentials.URLParseInfo"])
    ])
    /// What RealCodeBoxedExistentialThrow leaks, under `leakgraph run` and in-process alike.
    static let failedBoxedInitLeak = LeakExpectation([CycleShape(members: ["Fixture.Parser", "Fixture.Command"])])

    @Test("URL → NSURL bridging frees CoreFoundation temporaries with plain free(): no crash", arguments: Optimization.allCases)
    func urlBridging(_ optimization: Optimization) async throws {
        try await checkFixture(
            "RealCodeNSURLBridge", optimization, leaking: RealCodeFixtureTests.urlBridgingLeak)
    }

    @Test("a failed throwing init through an existential metatype frees its box directly: no crash", arguments: Optimization.allCases)
    func failedBoxedInitializer(_ optimization: Optimization) async throws {
        try await checkFixture(
            "RealCodeBoxedExistentialThrow", optimization, leaking: RealCodeFixtureTests.failedBoxedInitLeak)
    }

    @Test("tuple metadata from used heap memory: element offsets are 32 bits", arguments: Optimization.allCases)
    func tupleElementOffsets(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "RealCodeTupleElementOffset", optimization,
            leaking: LeakExpectation([CycleShape(members: ["Fixture.Owner", "Fixture.Holder"])]))
        guard let report else { return }
        #expect(report.references.contains { $0.label == "pair.owner" && $0.ownership == .strong })
    }

    @Test("XCTest's own root suite ⇄ suite run cycle, modelled (fixed: unowned test)", arguments: Optimization.allCases)
    func xctestShape(_ optimization: Optimization) async throws {
        try await checkFixture(
            "RealCodeXCTestRun", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    counting: ["Fixture.Suite": 1, "Fixture.SuiteRun": 1],
                    holds: ["Fixture.Case": 3, "Fixture.TestRun": 3, "(arrayStorage)": 2])
            ]))
    }

    @Test("XCTest itself: XCTMain's root suite ⇄ suite run cycle is reported as a known library leak", arguments: Optimization.allCases)
    func realXCTest(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("RealCodeXCTestRun", optimization).path
        let run = try await LeakgraphRun.run(program, ["xctest"])
        // A known library leak is reported but does not fail the run: the program's own status (0).
        #expect(!run.result.signaled && run.result.status == 0, "\(run.result.summary)")
        let report = try #require(run.report)
        #expect(report.cycles.count == 1)
        #expect(report.cycles.first?.knownLibraryLeak?.contains("swift-corelibs-xctest") == true)
        #expect(report.summary.leakedObjects > 0 && report.leakedObjectsOutsideLibraries == 0)
        let members = Set(report.cycles.first?.members.map { report.leaks[$0].type } ?? [])
        #expect(members == ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"])
        #expect(report.leaks.contains { $0.type.hasSuffix("XCTestCase") || $0.type.contains("Tests") })
    }
}
