import LeakGraph

/// Runs `body`, then fails the current test — XCTest or Swift Testing — when it allocated more than
/// `limit` Swift heap objects (or, with `aliveAtMost`, left more than that many alive). Returns
/// `body`'s value.
///
/// ```swift
/// func testRenderingAllocatesLittle() {
///     assertAllocations(atMost: 120) {
///         renderer.render(feed)
///     }
/// }
/// ```
///
/// The failure, at the caller's line, gives the count against the budget and the types and creation
/// sites that allocated most:
///
/// ```
/// 201 objects allocated (5,848 bytes), over the budget of at most 120 (81 more).
/// Most allocated types:
///   Widget × 200 (4,800 bytes)
///   …
/// Most allocating sites:
///   Widget × 200 at Widgets.swift:9 in makeWidgets(_:)
/// ```
///
/// Counted: every object made by `body` and the tasks it starts (see `LeakGraph/AllocationCountScope`),
/// the same every run; objects XCTest and Swift Testing make for themselves meanwhile are not, and
/// LeakGraph makes none inside `body`. Recording starts at the first check.
///
/// - Parameters:
///   - limit: The most objects `body` may allocate.
///   - aliveAtMost: The most of them that may still be alive when `body` returns; `nil`: no limit.
///   - fileID: The caller's file ID, for the failure's location (a default argument).
///   - filePath: The caller's file path, for the failure's location (a default argument).
///   - line: The caller's line, for the failure's location (a default argument).
///   - column: The caller's column, for the failure's location (a default argument).
///   - body: The code under test.
/// - Throws: What `body` throws (nothing is checked then); a failure to start recording is reported
///   as a test failure, not thrown.
@discardableResult
public func assertAllocations<R>(
    atMost limit: Int, aliveAtMost: Int? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    _ body: () throws -> R
) rethrows -> R {
    try AllocationBudgetCheck.check(
        AllocationBudget(objects: limit, aliveObjects: aliveAtMost),
        at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

/// Runs `body`, then fails the current test when it allocated more objects of a type than `limits`
/// gives it (`["Widget": 10]`: a full type name or one without its module), or left more than
/// `aliveAtMost` alive. Returns `body`'s value. See
/// ``assertAllocations(atMost:aliveAtMost:fileID:filePath:line:column:_:)-(Int,_,_,_,_,_,()->R)``.
@discardableResult
public func assertAllocations<R>(
    atMost limits: [String: Int], aliveAtMost: Int? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    _ body: () throws -> R
) rethrows -> R {
    try AllocationBudgetCheck.check(
        AllocationBudget(objectsOfType: limits, aliveObjects: aliveAtMost),
        at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

/// Runs `body` and the tasks it starts, then fails the current test when they allocated more than
/// `limit` objects (or left more than `aliveAtMost` alive). Returns `body`'s value. See
/// ``assertAllocations(atMost:aliveAtMost:fileID:filePath:line:column:_:)-(Int,_,_,_,_,_,()->R)``.
@discardableResult
public func assertAllocations<R>(
    atMost limit: Int, aliveAtMost: Int? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> R {
    try await AllocationBudgetCheck.check(
        AllocationBudget(objects: limit, aliveObjects: aliveAtMost),
        at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column), isolation: isolation, body)
}

/// Runs `body` and the tasks it starts, then fails the current test when they allocated more objects
/// of a type than `limits` gives it (or left more than `aliveAtMost` alive). Returns `body`'s value.
@discardableResult
public func assertAllocations<R>(
    atMost limits: [String: Int], aliveAtMost: Int? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> R {
    try await AllocationBudgetCheck.check(
        AllocationBudget(objectsOfType: limits, aliveObjects: aliveAtMost),
        at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column), isolation: isolation, body)
}

/// One budget check: count the body, report what goes over the budget.
enum AllocationBudgetCheck {
    /// Opens a count, or records why it cannot as a failure at `location` and returns `nil`.
    static func open(_ what: String, at location: TestLocation) -> AllocationCountScope? {
        TestFailure.opening(what, cannot: "count allocations", at: location) {
            try AllocationCountScope.open()
        }
    }

    /// Records a failure at `location` when `allocations` goes over `budget`.
    static func judge(_ allocations: AllocationProfile, against budget: AllocationBudget, at location: TestLocation) {
        if let message = budget.failureMessage(for: allocations) {
            TestFailure.record(message, at: location)
        }
    }

    static func check<R>(_ budget: AllocationBudget, at location: TestLocation, _ body: () throws -> R) rethrows -> R {
        guard let count = open("assertAllocations", at: location) else { return try body() }
        let (value, allocations) = try count.count(body)
        judge(allocations, against: budget, at: location)
        return value
    }

    static func check<R>(
        _ budget: AllocationBudget, at location: TestLocation, isolation: isolated (any Actor)?,
        _ body: () async throws -> R
    ) async rethrows -> R {
        guard let count = open("assertAllocations", at: location) else { return try await body() }
        let (value, allocations) = try await count.count(isolation: isolation, body)
        judge(allocations, against: budget, at: location)
        return value
    }
}
