/// What one test allocated: its name and its allocation profile — a row of the per-test counts
/// `leakgraph test --allocations` reports (`LeakReport/testAllocations`).
public struct TestAllocations: Sendable, Codable, Equatable {
    /// The test, as its library names it (`InboxTests.testLoad`, `InboxSuite/load()`).
    public var test: String
    /// The run it was found in (`XCTest`, `Swift Testing`) once runs are combined; `nil` before.
    public var run: String?
    /// What the test made, the test libraries' own objects left out.
    public var allocations: AllocationProfile

    /// Creates a row.
    public init(test: String, run: String? = nil, allocations: AllocationProfile) {
        self.test = test
        self.run = run
        self.allocations = allocations
    }
}
