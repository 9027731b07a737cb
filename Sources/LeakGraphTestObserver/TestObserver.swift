import CLeakGraphContract
import CLeakGraphTestObserver
import Foundation

/// `libLeakGraphTestObserver.so`: loaded by the preload library into a test process
/// (`leakgraph test`, or `leakgraph run` on a test bundle), it marks every object with the test that
/// made it, so that the report at exit names, for each root cycle, the test that made it.
///
/// How it knows (docs/how-it-works.md, "Which test made it"):
/// - **XCTest** runs one test at a time. An observer (`XCTestObservation`) opens a test scope when a
///   test case starts and makes it the current one until the case finishes: every object made
///   meanwhile — on any thread or task, its `setUp` and `tearDown` included — belongs to that test.
/// - **Swift Testing** runs tests in parallel. Its runner binds `Test.current`, a task-local value,
///   around each test, and the tasks that run the test's cases, and every task they create, inherit
///   it. An allocation in a task belongs to the test current in that task (asked once per task, see
///   CLeakGraphTestObserver); one outside any task (a Dispatch queue, a `Thread`) or in a detached
///   task belongs to none.
/// - Objects made outside any test (statics, the test runner's own objects, a suite's `init` run
///   outside a test) carry no test.
///
/// Called by the preload library's constructor; declared in `CLeakGraphContract.h`.
@_cdecl("leakgraph_test_observer_start")
public func leakgraphTestObserverStart(_ api: UnsafePointer<lg_test_observer_api>?) -> Int32 {
    guard let api, lg_observer_configure(api) != 0 else { return 0 }
    XCTestCaseObserver.start()
    if SwiftTestingScopes.isSwiftTestingRun(arguments: CommandLine.arguments) {
        SwiftTestingScopes.start()
    }
    return lg_observer_install() != 0 ? 1 : 0
}
