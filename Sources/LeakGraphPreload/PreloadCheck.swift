import CLeakGraphContract
import CLeakGraphPreloadStart
import Foundation
import LeakGraph
import LeakGraphReport

/// Called by the preload library's exit handler (CLeakGraphPreloadStart) when the checked program
/// exits normally: runs the leak check and writes the JSON report for `leakgraph run` to read.
/// Declared in `CLeakGraphPreloadStart.h`.
///
/// The report is written to `<output>` + `LG_REPORT_PARTIAL_SUFFIX` and renamed into place, so the
/// CLI never reads half a report. A failure is written as one sentence to `<output>` +
/// `LG_REPORT_ERROR_SUFFIX`.
@_cdecl("leakgraph_preload_check")
public func leakgraphPreloadCheck(_ outputPath: UnsafePointer<CChar>) {
    let path = String(cString: outputPath)
    let report = LeakChecker.check()
    do {
        let data = try report.jsonData(prettyPrinted: false)
        let temporary = path + LG_REPORT_PARTIAL_SUFFIX
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    } catch {
        let message = "the leak report could not be written to \(path): \(error)"
        try? Data(message.utf8).write(to: URL(fileURLWithPath: path + LG_REPORT_ERROR_SUFFIX))
    }
}
