import LeakGraph
import Testing

/// A Swift Testing trait that fails each test it applies to when the test allocates more than its
/// budget, as `assertAllocations` does around the whole test body: the failure, at the test's
/// declaration, gives the count against the budget and the types and creation sites that allocated
/// most.
///
/// ```swift
/// @Test(.allocationBudget(atMost: 120)) func renderingAllocatesLittle() { … }
///
/// @Test(.allocationBudget(atMost: ["Widget": 10], aliveAtMost: 0)) func widgetsAreReused() { … }
/// ```
///
/// Each test (each case of a parameterized test) is counted in its own scope, carried by its task, so
/// tests running in parallel count only their own allocations (objects made on threads that run no
/// task are counted only while one test runs; see `LeakGraph/AllocationCountScope`). What Swift
/// Testing itself makes around the test is not counted. With `.checksForLeaks` on the same test both
/// checks see the whole test.
public struct AllocationBudgetTrait: TestTrait, SuiteTrait, TestScoping {
    /// The budget of each test.
    public var budget: AllocationBudget

    /// Applies to the tests of nested suites too.
    public var isRecursive: Bool { true }

    /// Scopes each test case: not a suite, nor a parameterized test function as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    /// Runs the test case counting its allocations and records a failure when they go over the budget.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let location = TestLocation(test.sourceLocation)
        guard let count = AllocationBudgetCheck.open("allocationBudget", at: location) else {
            try await function()
            return
        }
        let (_, allocations) = try await count.count(function)
        AllocationBudgetCheck.judge(allocations, against: budget, at: location)
    }
}

extension Trait where Self == AllocationBudgetTrait {
    /// Fails each test that allocates more than `limit` Swift heap objects, or leaves more than
    /// `aliveAtMost` of them alive when it returns (see ``AllocationBudgetTrait``).
    public static func allocationBudget(atMost limit: Int, aliveAtMost: Int? = nil) -> Self {
        AllocationBudgetTrait(budget: AllocationBudget(objects: limit, aliveObjects: aliveAtMost))
    }

    /// Fails each test that allocates more objects of a type than `limits` gives it (`["Widget": 10]`:
    /// a full type name or one without its module), or leaves more than `aliveAtMost` alive.
    public static func allocationBudget(atMost limits: [String: Int], aliveAtMost: Int? = nil) -> Self {
        AllocationBudgetTrait(budget: AllocationBudget(objectsOfType: limits, aliveObjects: aliveAtMost))
    }
}
