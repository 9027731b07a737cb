import ArgumentParser
import Foundation
import LeakGraphReport

/// The report outputs `leakgraph run` and `leakgraph report` share: `--json`, `--text`, `--dot`, `--svg`
/// and `--html`, checked before any work starts and written by one function.
struct OutputOptions: ParsableArguments {
    /// Where to write the JSON report (pretty-printed), if anywhere.
    @Option(name: .customLong("json"), help: ArgumentHelp("Write the JSON report to this file.", valueName: "path"))
    var jsonPath: String?

    /// Where to write the text summary instead of the terminal.
    @Option(
        name: .customLong("text"),
        help: ArgumentHelp("Write the text summary to this file instead of the terminal.", valueName: "path")
    )
    var textPath: String?

    /// Where to write the memory graphs as Graphviz DOT text, if anywhere.
    @Option(name: .customLong("dot"), help: ArgumentHelp("Write the memory graphs as Graphviz DOT to this file.", valueName: "path"))
    var dotPath: String?

    /// Where to write the memory graphs as SVG, if anywhere.
    @Option(name: .customLong("svg"), help: ArgumentHelp("Write the memory graphs as SVG to this file.", valueName: "path"))
    var svgPath: String?

    /// Where to write the self-contained HTML report, if anywhere.
    @Option(
        name: .customLong("html"),
        help: ArgumentHelp("Write the HTML report (summary, graphs, backtraces) to this file.", valueName: "path")
    )
    var htmlPath: String?

    /// Whether any file output was asked for.
    var writesFiles: Bool {
        jsonPath != nil || textPath != nil || dotPath != nil || svgPath != nil || htmlPath != nil
    }

    /// Whether a graph output (`--dot`, `--svg`, `--html`) was asked for: these need the decoded report.
    var drawsGraphs: Bool {
        dotPath != nil || svgPath != nil || htmlPath != nil
    }

    /// Fails early, before the program runs or the report is read, when an output cannot be written.
    /// - Throws: ``ToolError`` naming the output and why.
    func checkWritable() throws(ToolError) {
        if let jsonPath {
            try ReportOutput.checkWritable(jsonPath, what: "JSON report")
        }
        if let textPath {
            try ReportOutput.checkWritable(textPath, what: "text summary")
        }
        try ReportOutput.checkGraphOutputsWritable(dot: dotPath, svg: svgPath, html: htmlPath)
    }

    /// Writes `report` where the options say. Without `--text`, the text summary goes to `terminal`;
    /// with it, `summarize` receives the one-line summary that points at the file.
    /// - Throws: ``ToolError`` when an output cannot be encoded or written.
    func write(
        _ report: LeakReport, terminal: (String) -> Void, summarize: (String) -> Void = { _ in }
    ) throws(ToolError) {
        if let jsonPath {
            let data: Data
            do {
                data = try report.jsonData(prettyPrinted: true)
            } catch {
                throw ToolError("cannot encode the JSON report: \(error)")
            }
            try ReportOutput.write(data, to: jsonPath, what: "JSON report")
        }
        let text = TextReport.render(report)
        if let textPath {
            try ReportOutput.write(Data(text.utf8), to: textPath, what: "text summary")
            summarize(ReportOutput.shortSummary(ReportSynopsis(report), textPath: textPath))
        } else {
            terminal(text)
        }
        try ReportOutput.writeGraphOutputs(report: report, dot: dotPath, svg: svgPath, html: htmlPath)
    }

    /// Writes the files the checked program rendered where the options say, as
    /// ``write(_:terminal:summarize:)`` writes the decoded report: the same bytes, in the same order,
    /// with the same messages. They are only asked for without graph outputs (``ChildRendering``).
    /// - Throws: ``ToolError`` when a rendered file cannot be read or an output written.
    func write(
        _ rendered: RenderedFiles, terminal: (String) -> Void, summarize: (String) -> Void = { _ in }
    ) throws(ToolError) {
        precondition(!drawsGraphs, "graphs are drawn from the decoded report")
        let json = try jsonPath.map { _ throws(ToolError) in try rendered.prettyJSON() }
        let text = try rendered.text()
        if let jsonPath, let json {
            try ReportOutput.write(json, to: jsonPath, what: "JSON report")
        }
        if let textPath {
            try ReportOutput.write(Data(text.utf8), to: textPath, what: "text summary")
            summarize(ReportOutput.shortSummary(rendered.synopsis, textPath: textPath))
        } else {
            terminal(text)
        }
    }
}
