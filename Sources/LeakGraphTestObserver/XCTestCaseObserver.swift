import CLeakGraphTestObserver
import XCTest

/// Opens a test scope for each XCTest test case and makes it the current one while the case runs
/// (XCTest runs one case at a time).
final class XCTestCaseObserver: NSObject, XCTestObservation {
    /// Registers an observer with XCTest.
    static func start() {
        XCTestObservationCenter.shared.addTestObserver(XCTestCaseObserver())
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
        lg_observer_set_xctest_token(lg_observer_test_begin(Self.label(of: testCase)))
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        lg_observer_set_xctest_token(0)
    }

    /// `RoomTests.testMembersKnowTheirRoom`: the case's name as XCTest gives it, `Class.method`, after
    /// the class's module and a unit separator (U+001F), which the report drops unless two tests of the
    /// run would then read the same (`AllocationScope/beginTest(label:)`).
    static func label(of testCase: XCTestCase) -> String {
        let type = String(reflecting: Swift.type(of: testCase))
        guard let dot = type.firstIndex(of: "."), !type[..<dot].isEmpty else { return testCase.name }
        return type[..<dot] + "\u{1F}" + testCase.name
    }
}
