import Foundation
import Synchronization
import XCTest

@testable import LeakGraphRecording

/// The token the test source below returns: the "test" that runs now.
private let runningTest = Atomic<UInt64>(0)

/// Test scopes, as `leakgraph test`'s observer uses them: a label per test, a stamp on what no check
/// scope claims, kept after the test; a check scope opened in a test hands its objects back to it.
final class TestScopeTests: XCTestCase, @unchecked Sendable {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Recorder.install()
        AllocationScope.setTestSource { runningTest.load(ordering: .relaxed) }
    }

    override func tearDown() {
        AllocationScope.setTestSource(nil)
        runningTest.store(0, ordering: .relaxed)
        super.tearDown()
    }

    @inline(never)
    private func makeProbes(_ count: Int) -> [ScopeProbe] {
        (0..<count).map { ScopeProbe(index: $0) }
    }

    private func scopes(of probes: [ScopeProbe]) -> Set<UInt32> {
        Set(probes.map { AllocationScope.scopeID(of: address(of: $0)) })
    }

    func testObjectsOfATestKeepItsLabelAfterItAndChecksHandTheirsBack() async throws {
        let first = try XCTUnwrap(AllocationScope.beginTest(label: "Suite.testFirst"))
        runningTest.store(first.token, ordering: .relaxed)
        let inFirst = makeProbes(5)
        let inTask = await Task { makeProbes(5) }.value
        let check = try XCTUnwrap(AllocationScope.begin())
        let checked = check.withCurrent { makeProbes(5) }
        XCTAssertEqual(scopes(of: checked), [check.id], "a check scope claims what it makes")
        check.end()
        XCTAssertEqual(scopes(of: checked), [first.id], "and hands it to the test it ran in")

        let second = try XCTUnwrap(AllocationScope.beginTest(label: "Suite.testSecond"))
        runningTest.store(second.token, ordering: .relaxed)
        let inSecond = makeProbes(5)
        runningTest.store(0, ordering: .relaxed)
        let outside = makeProbes(5)

        XCTAssertEqual(scopes(of: inFirst), [first.id])
        XCTAssertEqual(scopes(of: inTask), [first.id])
        XCTAssertEqual(scopes(of: inSecond), [second.id])
        XCTAssertEqual(scopes(of: outside), [0])
        XCTAssertEqual(AllocationScope.testLabel(ofScope: first.id), "Suite.testFirst")
        XCTAssertEqual(AllocationScope.testLabel(ofScope: second.id), "Suite.testSecond")
        XCTAssertNil(AllocationScope.testLabel(ofScope: 0))
        second.end()  // test scopes are not ended
        XCTAssertEqual(scopes(of: inSecond), [second.id])
        withExtendedLifetime((inFirst, inTask, checked, inSecond, outside)) {}
    }

    func testWhenEveryIDIsTakenTheOldestTestScopeIsRecycled() throws {
        let oldest = try XCTUnwrap(AllocationScope.beginTest(label: "Suite.testOldest"))
        runningTest.store(oldest.token, ordering: .relaxed)
        let early = makeProbes(3)
        runningTest.store(0, ordering: .relaxed)
        let recycledBefore = AllocationScope.recycledTestScopes
        // As many test scopes as there are ids: every older one, this test's first among them, is recycled.
        for index in 0..<AllocationScope.idLimit {
            XCTAssertNotNil(AllocationScope.beginTest(label: "Suite.test\(index)"))
        }
        XCTAssertGreaterThan(AllocationScope.recycledTestScopes, recycledBefore)
        XCTAssertEqual(scopes(of: early), [0], "the recycled test's objects lose its stamp")
        XCTAssertNotEqual(AllocationScope.testLabel(ofScope: oldest.id), "Suite.testOldest")
        let check = try XCTUnwrap(AllocationScope.begin(), "a check scope can still open: it recycles a test scope")
        check.end()
        withExtendedLifetime(early) {}
    }
}
