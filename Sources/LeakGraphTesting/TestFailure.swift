import Testing
import XCTest

/// Reports a failure to whichever test library runs the current test.
enum TestFailure {
    /// Swift Testing's current test, as `Suite.test()`, when one runs in this task.
    static var currentTestName: String? {
        Test.current.map { $0.id.nameComponents.joined(separator: ".") }
    }

    /// Records `message` as a failure at `location`: a Swift Testing issue when a Swift Testing test
    /// is running (`Test.current`), otherwise an XCTest failure.
    static func record(_ message: String, at location: TestLocation) {
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column))
        } else if let file = location.staticFilePath {
            XCTFail(message, file: file, line: UInt(location.line))
        } else {
            XCTFail("\(location.filePath):\(location.line): \(message)")
        }
    }
}
