import Foundation
import Testing

/// Compares `actual` with the golden file `Golden/<name>` beside the calling test's file (`filePath`).
///
/// Shared by the renderers' tests (`Tests/LeakGraphReportTests/Golden`, `Tests/LeakGraphGraphvizTests/Golden`).
/// With `LEAKGRAPH_RECORD_GOLDEN=1` in the environment the file is (re)written instead and the test
/// passes; otherwise any difference, or a missing file, fails the test and names the first differing line.
public func expectMatchesGolden(_ actual: String, named name: String, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden", isDirectory: true).appendingPathComponent(name)
    if ProcessInfo.processInfo.environment["LEAKGRAPH_RECORD_GOLDEN"] == "1" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(actual.utf8).write(to: url)
        print("recorded golden file \(url.path)")
        return
    }
    guard let data = FileManager.default.contents(atPath: url.path), let expected = String(data: data, encoding: .utf8) else {
        Issue.record("missing golden file \(url.path); run the tests with LEAKGRAPH_RECORD_GOLDEN=1 to record it", sourceLocation: sourceLocation)
        return
    }
    guard actual != expected else { return }
    let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let line = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actualLines.count, expectedLines.count)
    let want = line < expectedLines.count ? String(expectedLines[line]) : "<end of file>"
    let got = line < actualLines.count ? String(actualLines[line]) : "<end of output>"
    Issue.record(
        """
        output differs from golden file \(name) at line \(line + 1):
          expected: \(want)
          actual:   \(got)
        (set LEAKGRAPH_RECORD_GOLDEN=1 to re-record if the change is intended)
        full output:
        \(actual)
        """,
        sourceLocation: sourceLocation
    )
}
