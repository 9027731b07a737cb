import LeakGraph

/// Runs `body`, then fails the current test — XCTest or Swift Testing — for every object allocated
/// inside `body` (and the tasks it created) that is leaked after it returned. Returns `body`'s value.
///
/// ```swift
/// func testChatScreenIsReleased() throws {
///     try assertNoLeaks {
///         let screen = ChatViewController()
///         screen.viewDidLoad()
///     }
/// }
/// ```
///
/// The failure, at the caller's file and line, gives each root cycle as a leak trace
/// (`ChatViewController.handler → MessageHandler.onMessage (closure) → ChatViewController`), the
/// suspect reference with its fix, the creation sites, and the path of an HTML report (with SVG
/// graphs) and a JSON report written under `.build/leakgraph-reports/` of the package the test file
/// is in (or `LEAKGRAPH_REPORT_DIR`). Known leaks of libraries are listed but do not fail the test.
///
/// Recording starts at the first check; objects allocated before it are never reported. See
/// `LeakCheckScope` for how objects are attributed when checks run in parallel, and for the
/// confirmation pass.
///
/// - Parameters:
///   - options: `.ignoring(types:)`, `.ignoring(fingerprints:)`, `.settle(_:)`, `.frames(_:)`.
///   - fileID: The caller's file ID, for the failure's location (a default argument).
///   - filePath: The caller's file path, for the failure's location (a default argument).
///   - line: The caller's line, for the failure's location (a default argument).
///   - column: The caller's column, for the failure's location (a default argument).
///   - function: The enclosing function, which names the test in the report's header when no Swift
///     Testing test is current (a default argument).
///   - body: The code under test. Locals it creates are gone when it returns.
/// - Throws: What `body` throws (nothing is checked then); a failure to start recording is
///   reported as a test failure, not thrown.
@discardableResult
public func assertNoLeaks<R>(
    _ options: LeakCheckOptions...,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    function: String = #function,
    _ body: () throws -> R
) rethrows -> R {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let scope = LeakFailure.openScope(options, what: "assertNoLeaks", at: location) else {
        return try body()
    }
    let (value, report) = try scope.check(body)
    LeakFailure(report: report, location: location) {
        LeakFailure.describe("assertNoLeaks", function: function, at: location)
    }
    .recordIfLeaking()
    return value
}

/// Runs `body`, then fails the current test — XCTest or Swift Testing — for every object allocated
/// inside `body` (and the tasks it created) that is leaked after it returned. Returns `body`'s value.
///
/// ```swift
/// @Test func refreshReleasesTheModel() async throws {
///     try await assertNoLeaks(.settle(.milliseconds(50))) {
///         let model = FeedViewModel()
///         await model.refresh()
///     }
/// }
/// ```
///
/// As the synchronous ``assertNoLeaks(_:fileID:filePath:line:column:function:_:)``; the
/// settle period is a task sleep.
@discardableResult
public func assertNoLeaks<R>(
    _ options: LeakCheckOptions...,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    function: String = #function, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> R {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let scope = LeakFailure.openScope(options, what: "assertNoLeaks", at: location) else {
        return try await body()
    }
    let (value, report) = try await scope.check(isolation: isolation, body)
    LeakFailure(report: report, location: location) {
        LeakFailure.describe("assertNoLeaks", function: function, at: location)
    }
    .recordIfLeaking()
    return value
}
