import Foundation
import LeakGraphRender
import LeakGraphReport

/// The text summary and JSON report the checked program rendered into the workspace for this very
/// run (``ReportWorkspace/renderedFiles(for:asked:)`` checked its synopsis), ready to be written
/// where the user asked: the same bytes the CLI would render from the decoded report.
struct RenderedFiles {
    /// The program as `leakgraph run` saw it, the totals and what was written.
    let synopsis: ReportSynopsis
    /// Where they are.
    let workspace: ReportWorkspace

    /// The text summary: its header, from the program `leakgraph run` saw and the totals, in front
    /// of the body the program rendered (`TextReport.header(program:summary:)`,
    /// `TextReport.body(_:pathLimit:)`).
    /// - Throws: ``ToolError`` when the file cannot be read.
    func text() throws(ToolError) -> String {
        let body = String(decoding: try workspace.textBodyData(), as: UTF8.self)
        return TextReport.header(program: synopsis.program, summary: synopsis.summary, totals: synopsis.totals) + body
    }

    /// The JSON report, pretty-printed (the `--json` layout).
    /// - Throws: ``ToolError`` when the file cannot be read.
    func prettyJSON() throws(ToolError) -> Data {
        try workspace.reportData()
    }
}
