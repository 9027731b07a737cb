import Foundation
import XCTest

@testable import LeakGraphRecording

/// An object these tests allocate in and out of scopes.
final class ScopeProbe: Sendable {
    let index: Int
    init(index: Int) { self.index = index }
}

/// Allocation scopes: the stamp each record carries, how it travels with tasks, and how a closed scope
/// lets go of its objects. XCTest runs these one at a time, so "the only open scope" is exact here.
final class AllocationScopeTests: XCTestCase, @unchecked Sendable {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Recorder.install()
    }

    /// A probe kept alive by the caller, made where the scope under test is (or is not) current.
    @inline(never)
    private func makeProbes(_ count: Int) -> [ScopeProbe] {
        (0..<count).map { ScopeProbe(index: $0) }
    }

    func testObjectsMadeInAScopeCarryItsIDUntilItEnds() throws {
        let before = makeProbes(10)
        let scope = try XCTUnwrap(AllocationScope.begin())
        XCTAssertTrue((1...4095).contains(scope.id))
        let inside = scope.withCurrent { makeProbes(100) }
        // This test's thread runs no task: while the scope is the only one open, it is this thread's too.
        let outside = makeProbes(10)
        XCTAssertEqual(Set(inside.map { AllocationScope.scopeID(of: address(of: $0)) }), [scope.id])
        XCTAssertEqual(Set(outside.map { AllocationScope.scopeID(of: address(of: $0)) }), [scope.id])
        XCTAssertEqual(Set(before.map { AllocationScope.scopeID(of: address(of: $0)) }), [0])
        let stamped = Recorder.withFrozenHeap { records in
            Set(records.filter { $0.scope == scope.id }.map(\.address))
        }
        XCTAssertTrue(Set(inside.map { address(of: $0) }).isSubset(of: stamped))

        scope.end()
        XCTAssertEqual(Set(inside.map { AllocationScope.scopeID(of: address(of: $0)) }), [0], "the stamp goes with the scope")
        scope.end()  // a second end does nothing
        withExtendedLifetime((before, inside, outside)) {}
    }

    func testAReusedIDNamesOnlyTheNewScopesObjects() throws {
        let first = try XCTUnwrap(AllocationScope.begin())
        let old = first.withCurrent { makeProbes(5) }
        first.end()
        let second = try XCTUnwrap(AllocationScope.begin())
        defer { second.end() }
        XCTAssertEqual(second.id, first.id, "the lowest free id is reused")
        XCTAssertNotEqual(second.token, first.token, "with a new generation")
        let new = second.withCurrent { makeProbes(5) }
        XCTAssertEqual(Set(old.map { AllocationScope.scopeID(of: address(of: $0)) }), [0])
        XCTAssertEqual(Set(new.map { AllocationScope.scopeID(of: address(of: $0)) }), [second.id])
        // A task still carrying the first scope's token stamps nothing.
        let stale = AllocationScope.$currentToken.withValue(first.token) { makeProbes(5) }
        XCTAssertEqual(Set(stale.map { AllocationScope.scopeID(of: address(of: $0)) }), [0])
        withExtendedLifetime((old, new, stale)) {}
    }

    func testChildTasksInheritTheScopeAndDetachedTasksDoNot() async throws {
        let scope = try XCTUnwrap(AllocationScope.begin())
        defer { scope.end() }
        let (child, unstructured, detached) = await scope.withCurrent {
            let child = await withTaskGroup(of: [ScopeProbe].self) { group in
                group.addTask { [self] in makeProbes(3) }
                return await group.next() ?? []
            }
            let unstructured = await Task { [self] in makeProbes(3) }.value
            let detached = await Task.detached { [self] in makeProbes(3) }.value
            return (child, unstructured, detached)
        }
        XCTAssertEqual(Set(child.map { AllocationScope.scopeID(of: address(of: $0)) }), [scope.id])
        XCTAssertEqual(Set(unstructured.map { AllocationScope.scopeID(of: address(of: $0)) }), [scope.id])
        XCTAssertEqual(Set(detached.map { AllocationScope.scopeID(of: address(of: $0)) }), [0])
    }

    func testWorkOutsideAnyTaskGoesToTheOnlyOpenScope() throws {
        let scope = try XCTUnwrap(AllocationScope.begin())
        let alone = onAnotherThread { self.makeProbes(5) }
        XCTAssertEqual(Set(alone.map { AllocationScope.scopeID(of: address(of: $0)) }), [scope.id])

        let other = try XCTUnwrap(AllocationScope.begin())
        let shared = onAnotherThread { self.makeProbes(5) }
        XCTAssertEqual(Set(shared.map { AllocationScope.scopeID(of: address(of: $0)) }), [0], "two scopes open: nobody's")
        other.end()
        scope.end()
        withExtendedLifetime((alone, shared)) {}
    }

    func testANestedScopeGivesItsObjectsToItsParentWhenItEnds() throws {
        let outer = try XCTUnwrap(AllocationScope.begin())
        let (inner, made) = try outer.withCurrent {
            let inner = try XCTUnwrap(AllocationScope.begin())
            XCTAssertNotEqual(inner.id, outer.id)
            return (inner, inner.withCurrent { makeProbes(5) })
        }
        XCTAssertEqual(Set(made.map { AllocationScope.scopeID(of: address(of: $0)) }), [inner.id])
        // Both open, one nested in the other: a thread without a task allocates into the innermost.
        let threaded = onAnotherThread { self.makeProbes(3) }
        XCTAssertEqual(Set(threaded.map { AllocationScope.scopeID(of: address(of: $0)) }), [inner.id])
        inner.end(givingObjectsToParent: true)
        XCTAssertEqual(Set((made + threaded).map { AllocationScope.scopeID(of: address(of: $0)) }), [outer.id])
        // A nested scope ended plainly (a leak check, which judged its objects) gives them to nobody.
        let (judging, judged) = try outer.withCurrent {
            let judging = try XCTUnwrap(AllocationScope.begin())
            return (judging, judging.withCurrent { makeProbes(2) })
        }
        judging.end()
        XCTAssertEqual(Set(judged.map { AllocationScope.scopeID(of: address(of: $0)) }), [0])
        outer.end()
        XCTAssertEqual(Set(made.map { AllocationScope.scopeID(of: address(of: $0)) }), [0])
        withExtendedLifetime((made, threaded, judged)) {}
    }

    func testCountsOfNestedScopesAddUp() throws {
        let outer = try XCTUnwrap(AllocationScope.begin())
        XCTAssertTrue(outer.startCounting())
        XCTAssertFalse(outer.startCounting(), "counted once")
        let kept = outer.withCurrent { () -> [ScopeProbe] in
            let inner = AllocationScope.begin()!
            XCTAssertTrue(inner.startCounting())
            let made = inner.withCurrent { makeProbes(7) }
            let innerRows = inner.stopCounting()
            inner.end()
            XCTAssertEqual(probeCount(innerRows), 7)
            return made + makeProbes(2)
        }
        let rows = outer.stopCounting()
        outer.end()
        XCTAssertEqual(probeCount(rows), 9, "the nested scope's objects count for the enclosing one too")
        XCTAssertTrue(outer.stopCounting().isEmpty, "stopped once")
        withExtendedLifetime(kept) {}
    }

    /// `ScopeProbe` objects in `rows`.
    private func probeCount(_ rows: [AllocationCountRow]) -> Int {
        let metadata = UInt(bitPattern: unsafeBitCast(ScopeProbe.self, to: UnsafeRawPointer.self))
        return rows.filter { UInt($0.metadata) == metadata }.reduce(0) { $0 + Int($1.objects) }
    }

    /// Runs `body` on a new thread (no task) and returns its result.
    private func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () -> R) -> R {
        nonisolated(unsafe) var result: R?
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result = body()
            done.signal()
        }
        thread.start()
        done.wait()
        return result!
    }
}
