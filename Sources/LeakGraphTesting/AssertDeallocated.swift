import LeakGraph

/// Fails the current test (Swift Testing or XCTest) when the object `make` returns is still alive
/// `timeLimit` after it returned: the failure says why — the chain of strong references from a root
/// (a global by name, a thread's stack) to the object, each step labelled.
///
/// `make` creates the object and does what should end its life (present and dismiss a controller,
/// run a request); only the watch holds it afterwards, weakly. Recording starts first if it is not
/// running, so the object is tracked. The object is watched by identity (its address and type
/// metadata, while a weak reference holds it), so `private`, `fileprivate`, generic and nested
/// classes are checked like any other.
///
/// ```swift
/// await assertDeallocated {
///     let controller = ProfileViewController()
///     controller.viewDidLoad()
///     return controller
/// }
/// ```
public func assertDeallocated<T: AnyObject>(
    within timeLimit: Duration = .seconds(2),
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    _ make: () throws -> T
) async rethrows {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard startRecording(at: location) else { return }
    let watch = LeakChecker.watchDeallocation(of: try make(), within: timeLimit)
    if let failure = await watch.wait() {
        TestFailure.record(failure.description, at: location)
    }
}

/// Fails the current test (Swift Testing or XCTest) when the object `make` returns is still alive
/// `timeLimit` after it returned, as the `async` form does; the calling thread waits (polling every 10 ms),
/// so it fits a synchronous test. Prefer the `async` form where the code under test finishes its work on
/// the thread or actor the test runs on.
///
/// ```swift
/// func testControllerIsReleased() {
///     assertDeallocated { ProfileViewController() }
/// }
/// ```
public func assertDeallocated<T: AnyObject>(
    within timeLimit: Duration = .seconds(2),
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    _ make: () throws -> T
) rethrows {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard startRecording(at: location) else { return }
    let watch = LeakChecker.watchDeallocation(of: try make(), within: timeLimit)
    if let failure = watch.waitBlocking() {
        TestFailure.record(failure.description, at: location)
    }
}

/// Fails the current test when the object `watch` watches is still alive at its deadline (see
/// ``assertDeallocated(within:fileID:filePath:line:column:_:)-30xaz``); waits until then at most.
public func assertDeallocated(
    _ watch: DeallocationWatch,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) async {
    if let failure = await watch.wait() {
        TestFailure.record(
            failure.description, at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

/// Starts recording if needed; records a failure and returns `false` when it cannot.
private func startRecording(at location: TestLocation) -> Bool {
    do {
        try LeakChecker.startRecording()
        return true
    } catch {
        TestFailure.record("assertDeallocated: cannot record allocations: \(error)", at: location)
        return false
    }
}
