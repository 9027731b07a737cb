// Found running every XCTest bundle (swift-algorithms 1.2.1, Yams 6.2.2, swift-argument-parser 1.8.2):
// a real reference cycle in swift-corelibs-xctest, not in the packages under test.
//
// XCTest (Sources/XCTest/Public/XCAbstractTest.swift, XCTestRun.swift) keeps, for every test and suite,
// `open private(set) var testRun: XCTestRun?` (set by `perform(_:)`) and the run keeps
// `public let test: XCTest` — both strong. `XCTMain` builds the root suite in `XCTMainMisc`, runs it,
// returns an exit code and then calls `exit()`: by the time the leak check runs, nothing references the
// root suite any more, so the root suite ⇄ its XCTestSuiteRun is an unreachable cycle that holds every
// XCTestCaseSuite, every XCTestCase instance (and whatever its stored properties hold), every run.
// Harmless in practice (once per process, freed by exit), but a true leak: nothing can reach it.
//
// leak:   a model of XCTest's shape — Suite ⇄ SuiteRun, 3 Case ⇄ TestRun pairs held by the suite's and
//         the suite run's arrays: 10 leaked objects in 1 root cycle (Suite, SuiteRun), which holds
//         3 Case, 3 TestRun and 2 array storages (strong edges `testRun`, `strongTest`, `tests`,
//         `testRuns`, `[0]`…`[2]`; the `unownedTest` edges are unowned).
// fixed:  the same, but each run keeps its test only through `unowned let unownedTest` (strongTest is
//         nil) — nothing leaks.
// xctest: the real thing, `XCTMain` with one test case: 1 root cycle (XCTestSuite ⇄ XCTestSuiteRun)
//         holding 15 more objects (the bundle suite, its XCTestCaseSuite, the XCTestCase instance and
//         its `_name` string storage, their runs, 6 array storages, the test closure's context, the
//         case's TeardownBlocksState): 17 leaked objects.

import Glibc
import XCTest

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed, xctest }

let mode = parseMode(Mode.self)

// MARK: - The shape (a model of swift-corelibs-xctest)

class Test {
    private(set) var testRun: TestRun?
    func makeRun() -> TestRun { TestRun(test: self) }
    func perform() {
        let run = makeRun()
        testRun = run
        watch(run)
    }
}

final class Case: Test {
    var name: String
    init(name: String) { self.name = name }
}

final class Suite: Test {
    var tests: [Test] = []
    override func makeRun() -> TestRun { SuiteRun(test: self) }
    override func perform() {
        super.perform()
        for test in tests {
            test.perform()
            (testRun as? SuiteRun)?.testRuns.append(test.testRun!)
        }
    }
}

class TestRun {
    // XCTest: `public let test: XCTest`. The fixed variant is what breaking the cycle would look like.
    let strongTest: Test?
    unowned let unownedTest: Test
    init(test: Test) {
        strongTest = mode == .fixed ? nil : test
        unownedTest = test
    }
}

final class SuiteRun: TestRun {
    var testRuns: [TestRun] = []
}

/// `XCTMain`: build the root suite, run it, return an exit code; the caller then exits.
@inline(never)
func runSuite() -> Int32 {
    let suite = Suite()
    watch(suite)
    for name in ["testA", "testB", "testC"] {
        let test = Case(name: name)
        watch(test)
        suite.tests.append(test)
    }
    suite.perform()
    return suite.testRun == nil ? 1 : 0
}

final class ProbeTests: XCTestCase {
    func testNothing() { XCTAssertEqual(1 + 1, 2) }
    static let allTests = [("testNothing", testNothing)]
}

switch mode {
case .leak, .fixed:
    let status = runSuite()
    finish(expectingAlive: mode == .leak ? 8 : 0)
    exit(status)
case .xctest:
    // Prints XCTest's own progress; exits with XCTest's status (0). The fixture's own argument must not
    // reach XCTest, which would read it as a test filter (and then run no test, in a "Selected tests"
    // root suite without the bundle suite).
    XCTMain([testCase(ProbeTests.allTests)], arguments: [CommandLine.arguments[0]])
}
