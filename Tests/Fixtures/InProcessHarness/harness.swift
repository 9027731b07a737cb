// The exit half of the in-process harness (see start.c): one in-process leak check, written where
// the test reads it.

import Foundation
import LeakGraph
import LeakGraphReport

@_cdecl("leakgraph_harness_check")
func leakgraphHarnessCheck() {
    guard let path = ProcessInfo.processInfo.environment["LEAKGRAPH_INPROCESS_OUTPUT"] else { return }
    let report = LeakChecker.check()
    do {
        try report.jsonData(prettyPrinted: false).write(to: URL(fileURLWithPath: path))
    } catch {
        fputs("harness: cannot write \(path): \(error)\n", stderr)
        exit(71)
    }
}
