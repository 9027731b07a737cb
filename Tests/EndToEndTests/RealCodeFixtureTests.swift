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

    @Test("a cycle a test case stores is a root cycle of its own, held by XCTest's known leak, and fails the run", arguments: Optimization.allCases)
    func cycleHeldByXCTest(_ optimization: Optimization) async throws {
        let (_, leaking, fixed) = try await runLeakAndFixed("XCTestHeldCycle", optimization)

        #expect(!leaking.result.signaled && leaking.result.status == LeakgraphRun.leakStatus, "\(leaking.result.summary)")
        let report = try #require(leaking.report)
        expectConsistent(report)
        // What XCTest's own cycle holds varies by a test case (the last one may still be referenced when
        // XCTMain exits; the fixture's last test stores nothing), so only its members are pinned.
        let container = CycleShape(members: ["Fixture.Container", "Fixture.Part", "Fixture.Part", "(arrayStorage)"])
        let node = CycleShape(members: ["Fixture.Node"])
        let shapes = cycleShapes(of: report)
        #expect(shapes[container] == 1 && shapes[node] == 1, "\(shapes)")
        #expect(report.summary.rootCycles == 3)
        let libraryMembers = report.cycles.filter { $0.knownLibraryLeak != nil }.flatMap { $0.members.map { report.leaks[$0].type } }
        #expect(libraryMembers.sorted() == ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"])
        #expect(report.leakedObjectsOutsideLibraries == 5)
        let known = try #require(report.cycles.first { $0.knownLibraryLeak != nil })
        let held = report.cycles.filter { $0.knownLibraryLeak == nil }
        #expect(held.count == 2 && held.allSatisfy { $0.heldByKnownLibraryLeak == known.id && $0.fingerprint != nil })
        #expect(Set(held.compactMap { $0.suspect?.label }) == ["owner", "me"])
        #expect(leaking.text?.contains("Held by a known library leak (root cycle #1)") == true)

        // Fixed: only XCTest's own leak, exit 0. What it holds is not pinned here: in one CI run the
        // second test case (and the Node it stores) was still held at exit from outside, so it was not
        // among the leaked objects — exact either way, but not the same set from run to run.
        #expect(!fixed.result.signaled && fixed.result.status == 0, "\(fixed.result.summary)")
        let fixedReport = try #require(fixed.report)
        expectConsistent(fixedReport)
        #expect(fixedReport.cycles.count == 1)
        #expect(fixedReport.cycles.allSatisfy { $0.knownLibraryLeak != nil && $0.heldByKnownLibraryLeak == nil })
        #expect(fixedReport.leakedObjectsOutsideLibraries == 0)
        let fixedTypes = Set(fixedReport.leaks.map(\.type))
        #expect(fixedTypes.isSuperset(of: ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"]))
    }
}
