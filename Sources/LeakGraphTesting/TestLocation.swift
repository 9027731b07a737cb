import Testing

/// Where a test failure is reported: the caller of `assertNoLeaks`, or the test a trait runs.
struct TestLocation: Sendable {
    var fileID: String
    var filePath: String
    var line: Int
    var column: Int
    /// The `#filePath` literal XCTest wants, when the location came from one.
    var staticFilePath: StaticString?

    init(fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        self.fileID = fileID
        self.filePath = "\(filePath)"
        self.line = Int(line)
        self.column = Int(column)
        self.staticFilePath = filePath
    }

    init(fileID: String, filePath: String, line: Int, column: Int) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
        self.staticFilePath = nil
    }

    /// Where Swift Testing declares a test (the traits report there).
    init(_ location: SourceLocation) {
        self.init(fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
    }
}
