import CLeakGraphContract
#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraphRender
import LeakGraphReport

/// The files the preload library leaves for `leakgraph run` (names from `CLeakGraphContract.h`):
/// the JSON report at the output path, and beside it the text summary without its header, the
/// synopsis, or one sentence saying why there is no report.
struct PreloadFiles {
    /// Where the JSON report goes (`LEAKGRAPH_OUTPUT`).
    let outputPath: String

    /// Writes what `request` asks for. With nothing known asked, the compact JSON report alone.
    /// Otherwise the text summary without its header and the JSON report (pretty-printed or compact)
    /// when asked, then the synopsis, last: when it exists, the others are complete. Each file is
    /// written under its name + `LG_REPORT_PARTIAL_SUFFIX` and renamed into place.
    /// - Throws: the first error writing or renaming a file.
    func write(_ report: LeakReport, request: PreloadRequest) throws {
        guard !request.isReportOnly else {
            try place(report.jsonData(prettyPrinted: false), at: outputPath)
            return
        }
        if request.rendersText {
            try place(
                Data(TextReport.body(report, options: request.textOptions).utf8), at: outputPath + LG_REPORT_TEXT_SUFFIX
            )
        }
        if request.rendersJSON {
            try place(report.jsonData(prettyPrinted: request.rendersPrettyJSON), at: outputPath)
        }
        let synopsis = ReportSynopsis(report, rendered: request.renderedWords)
        try place(synopsis.jsonData(), at: outputPath + LG_REPORT_SYNOPSIS_SUFFIX)
    }

    /// Writes `message` to `<output>` + `LG_REPORT_ERROR_SUFFIX` (best effort: there is nobody else
    /// to tell).
    func writeError(_ message: String) {
        try? Data(message.utf8).write(to: URL(fileURLWithPath: outputPath + LG_REPORT_ERROR_SUFFIX))
    }

    /// Writes `message` to `<output>` + `LG_REPORT_SNAPSHOT_ERROR_SUFFIX`: why the snapshot asked for
    /// was not written (best effort).
    func writeSnapshotError(_ message: String) {
        try? Data(message.utf8).write(to: URL(fileURLWithPath: outputPath + LG_REPORT_SNAPSHOT_ERROR_SUFFIX))
    }

    /// Writes `data` to `path` + `LG_REPORT_PARTIAL_SUFFIX`, then renames it to `path`.
    private func place(_ data: Data, at path: String) throws {
        let temporary = path + LG_REPORT_PARTIAL_SUFFIX
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
