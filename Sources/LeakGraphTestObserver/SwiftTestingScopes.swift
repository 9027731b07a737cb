import CLeakGraphTestObserver
import Synchronization
import Testing

/// The test scopes of a Swift Testing run: one per test function (its cases share it), opened the
/// first time an allocation is made in a task where that test is current (`Test.current`).
enum SwiftTestingScopes {
    /// Each test's token, by the test's id (0: no scope could be opened; not asked again).
    private static let tokens = Mutex<[Test.ID: UInt64]>([:])

    /// Whether this process runs Swift Testing's tests: a test bundle does with
    /// `--testing-library swift-testing` (how `swift test` and `leakgraph test` run them).
    static func isSwiftTestingRun(arguments: [String]) -> Bool {
        zip(arguments, arguments.dropFirst()).contains { $0 == "--testing-library" && $1 == "swift-testing" }
            || arguments.contains("--testing-library=swift-testing")
    }

    /// Turns the lookup on.
    static func start() {
        tokens.withLock { _ in }  // the lazy global is made now, not inside the allocation hook
        lg_observer_set_resolver { SwiftTestingScopes.currentToken() }
    }

    /// The token of the test current in the calling task (a test function, not a suite), opening its
    /// scope the first time; 0 for none. Runs inside the allocation hook: what it allocates is not
    /// recorded.
    static func currentToken() -> UInt64 {
        guard let test = Test.current, !test.isSuite else { return 0 }
        let id = test.id
        return tokens.withLock { tokens in
            if let token = tokens[id] { return token }
            let token = lg_observer_test_begin(label(of: id))
            tokens[id] = token
            return token
        }
    }

    /// `MessageHandlerTests.countsDeliveredMessages()`: the suites' names and the function's, as
    /// Swift Testing names the test, after its module and a unit separator (U+001F), which the report
    /// drops unless two tests of the run would then read the same (`AllocationScope/beginTest(label:)`).
    static func label(of id: Test.ID) -> String {
        id.moduleName + "\u{1F}" + id.nameComponents.joined(separator: ".")
    }
}
