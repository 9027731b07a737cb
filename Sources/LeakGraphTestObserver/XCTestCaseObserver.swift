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

    /// `RoomTests.testMembersKnowTheirRoom`: the case's name as XCTest gives it, `Class.method`.
    static func label(of testCase: XCTestCase) -> String {
        testCase.name
    }
}
