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

    /// Opens the scope of one check (a leak check, an allocation count), or records why it cannot
    /// (recording refused: the error's description is its message) as one failure at `location`,
    /// `what: cannot action: why`, and returns `nil`: the test then runs unchecked. Every check of a test
    /// opens its scope through here.
    static func opening<Scope>(
        _ what: String, cannot action: String, at location: TestLocation, _ open: () throws -> Scope
    ) -> Scope? {
        do {
            return try open()
        } catch {
            record("\(what): cannot \(action): \(error)", at: location)
            return nil
        }
    }
}
