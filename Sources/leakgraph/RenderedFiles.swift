import Foundation
import LeakGraphReport

/// The text summary and JSON report the checked program rendered into the workspace for this very
/// run (``ReportWorkspace/renderedFiles(for:asked:)`` checked its synopsis), ready to be copied to
/// where the user asked: the same bytes the CLI would render from the decoded report.
struct RenderedFiles {
    /// The program, totals and renderings the files were written with.
    let synopsis: ReportSynopsis
    /// Where they are.
    let workspace: ReportWorkspace

    /// The text summary.
    /// - Throws: ``ToolError`` when the file cannot be read.
    func text() throws(ToolError) -> String {
        String(decoding: try workspace.textData(), as: UTF8.self)
    }

    /// The JSON report, pretty-printed (the `--json` layout).
    /// - Throws: ``ToolError`` when the file cannot be read.
    func prettyJSON() throws(ToolError) -> Data {
        try workspace.reportData()
    }
}
