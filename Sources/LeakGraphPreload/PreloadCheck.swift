import CLeakGraphPreloadStart
import Foundation
import LeakGraph
import LeakGraphReport

/// Called by the preload library's exit handler (CLeakGraphPreloadStart) when the checked program
/// exits normally: runs the leak check and writes the JSON report for `leakgraph run` to read.
///
/// The report is written to a temporary file and renamed into place, so the CLI never reads half a
/// report. A failure is written as one sentence to `<output>.error`.
@_cdecl("leakgraph_preload_check")
public func leakgraphPreloadCheck(_ outputPath: UnsafePointer<CChar>) {
    let path = String(cString: outputPath)
    let report = LeakChecker.check()
    do {
        let data = try report.jsonData(prettyPrinted: false)
        let temporary = path + ".partial"
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    } catch {
        let message = "the leak report could not be written to \(path): \(error)"
        try? Data(message.utf8).write(to: URL(fileURLWithPath: path + ".error"))
    }
}
