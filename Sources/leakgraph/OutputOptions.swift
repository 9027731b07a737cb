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

    /// Fails early, before the program runs or the report is read, when an output cannot be written or
    /// two outputs name the same file (after resolving symlinks: one would overwrite the other).
    /// - Throws: ``ToolError`` naming the output and why.
    func checkWritable() throws(ToolError) {
        var files: [(flag: String, file: OutputFile)] = []
        if let jsonPath {
            files.append(("--json", try ReportOutput.checkWritable(jsonPath, what: "JSON report")))
        }
        if let textPath {
            files.append(("--text", try ReportOutput.checkWritable(textPath, what: "text summary")))
        }
        files += try ReportOutput.checkGraphOutputsWritable(dot: dotPath, svg: svgPath, html: htmlPath)
        for (index, output) in files.enumerated() {
            if let earlier = files[..<index].first(where: { $0.file.identity == output.file.identity }) {
                let same = earlier.file.path == output.file.path ? "" : " (\(earlier.file.path) and \(output.file.path))"
                throw ToolError(
                    "\(earlier.flag) and \(output.flag) name the same file\(same), and one would overwrite the other; "
                        + "give each output its own path")
            }
        }
    }

    /// Writes `report` where the options say. Without `--text`, the text summary goes to `terminal`;
    /// with it, `summarize` receives the one-line summary that points at the file. An output that
    /// cannot be written does not stop the others, and the text summary is never lost: when its file
    /// cannot be written it goes to `fallback` (the terminal unless told otherwise).
    /// - Throws: ``ToolError`` for the last output that could not be encoded or written, after every
    ///   earlier one was printed as its own `leakgraph: …` line.
    func write(
        _ report: LeakReport, terminal: (String) -> Void, fallback: ((String) -> Void)? = nil,
        summarize: (String) -> Void = { _ in }
    ) throws(ToolError) {
        var failures = OutputFailures()
        if let jsonPath {
            failures.attempt { () throws(ToolError) in
                let data: Data
                do {
                    data = try report.jsonData(prettyPrinted: true)
                } catch {
                    throw ToolError("cannot encode the JSON report: \(error)")
                }
                try ReportOutput.write(data, to: jsonPath, what: "JSON report")
            }
        }
        writeText(
            TextReport.render(report), synopsis: ReportSynopsis(report), terminal: terminal, fallback: fallback,
            summarize: summarize, failures: &failures)
        failures.attempt { () throws(ToolError) in
            try ReportOutput.writeGraphOutputs(report: report, dot: dotPath, svg: svgPath, html: htmlPath)
        }
        try failures.finish()
    }

    /// Writes the files the checked program rendered where the options say, as
    /// ``write(_:terminal:fallback:summarize:)`` writes the decoded report: the same bytes, in the same
    /// order, with the same messages. They are only asked for without graph outputs (``ChildRendering``).
    /// - Throws: ``ToolError`` when a rendered file cannot be read or an output written.
    func write(
        _ rendered: RenderedFiles, terminal: (String) -> Void, fallback: ((String) -> Void)? = nil,
        summarize: (String) -> Void = { _ in }
    ) throws(ToolError) {
        precondition(!drawsGraphs, "graphs are drawn from the decoded report")
        var failures = OutputFailures()
        let text = try rendered.text()
        if let jsonPath {
            failures.attempt { () throws(ToolError) in
                try ReportOutput.write(try rendered.prettyJSON(), to: jsonPath, what: "JSON report")
            }
        }
        writeText(
            text, synopsis: rendered.synopsis, terminal: terminal, fallback: fallback, summarize: summarize,
            failures: &failures)
        try failures.finish()
    }

    /// Writes the text summary to `--text`, or to `terminal` without it; when the file cannot be
    /// written, the text goes to `fallback` (else `terminal`) and the failure is kept.
    private func writeText(
        _ text: String, synopsis: ReportSynopsis, terminal: (String) -> Void, fallback: ((String) -> Void)?,
        summarize: (String) -> Void, failures: inout OutputFailures
    ) {
        guard let textPath else {
            terminal(text)
            return
        }
        do throws(ToolError) {
            try ReportOutput.write(Data(text.utf8), to: textPath, what: "text summary")
            summarize(ReportOutput.shortSummary(synopsis, textPath: textPath))
        } catch {
            if let fallback { fallback(text) } else { terminal(text) }
            var error = error
            error.code = .textSummaryNotWritten
            failures.record(error)
        }
    }
}

/// The outputs that could not be written, collected so that one failure does not stop the others.
struct OutputFailures {
    private var last: ToolError?

    /// Runs `body`, keeping its error.
    mutating func attempt(_ body: () throws(ToolError) -> Void) {
        do throws(ToolError) {
            try body()
        } catch {
            record(error)
        }
    }

    /// Keeps `error`; an earlier one is printed now (`leakgraph: …`), so that each has its line.
    mutating func record(_ error: ToolError) {
        if let last {
            printError("leakgraph: \(last.message)")
        }
        last = error
    }

    /// Throws the last failure, if any.
    func finish() throws(ToolError) {
        if let last { throw last }
    }
}
