import ArgumentParser
import Foundation
import LeakGraphRender
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
    @Option(
        name: .customLong("dot"),
        help: ArgumentHelp("Write the memory graphs as Graphviz DOT to this file.", valueName: "path"))
    var dotPath: String?

    /// Where to write the memory graphs as SVG, if anywhere.
    @Option(
        name: .customLong("svg"), help: ArgumentHelp("Write the memory graphs as SVG to this file.", valueName: "path"))
    var svgPath: String?

    /// Where to write the self-contained HTML report, if anywhere.
    @Option(
        name: .customLong("html"),
        help: ArgumentHelp("Write the HTML report (summary, graphs, backtraces) to this file.", valueName: "path")
    )
    var htmlPath: String?

    /// Where to write the leak families as JUnit XML test cases, if anywhere.
    @Option(
        name: .customLong("junit"),
        help: ArgumentHelp(
            "Write one failed JUnit test case per leak family to this file (JUnit XML, for CI test reports).",
            valueName: "path"))
    var junitPath: String?

    /// Where to write the leak families as SARIF 2.1.0 results, if anywhere.
    @Option(
        name: .customLong("sarif"),
        help: ArgumentHelp(
            "Write one SARIF 2.1.0 result per leak family to this file (code annotations in CI).", valueName: "path"))
    var sarifPath: String?

    /// Every root cycle in full in the text, known library leaks too.
    @Flag(
        name: .customLong("expand"),
        help:
            "In the text, show every root cycle in full (by default cycles with one fingerprint are one section and known library leaks one line)."
    )
    var expand = false

    /// Every walk diagnostic in the text; for `leakgraph run`, the check's step times too (`LEAKGRAPH_VERBOSE`).
    @Flag(
        name: .customLong("verbose"),
        help: """
            In the text, list every object that could not be read exactly (by default those of the Swift runtime, Foundation, \
            Dispatch and the test libraries are counted in one line). `run` also says on standard error how long each step of \
            the check at exit took (walk, orphan scan, analysis, writing) and its peak memory.
            """)
    var verbose = false

    /// How the text summary is written.
    var textOptions: TextReport.Options {
        TextReport.Options(expand: expand, verbose: verbose)
    }

    /// Whether any file output was asked for.
    var writesFiles: Bool {
        jsonPath != nil || textPath != nil || dotPath != nil || svgPath != nil || htmlPath != nil || junitPath != nil
            || sarifPath != nil
    }

    /// Whether a graph output (`--dot`, `--svg`, `--html`) was asked for: these need the decoded report.
    var drawsGraphs: Bool {
        dotPath != nil || svgPath != nil || htmlPath != nil
    }

    /// Whether an output the CLI renders from the decoded report was asked for: a graph, JUnit or SARIF.
    var needsDecodedReport: Bool {
        drawsGraphs || junitPath != nil || sarifPath != nil
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
        if let junitPath {
            files.append(("--junit", try ReportOutput.checkWritable(junitPath, what: "JUnit report")))
        }
        if let sarifPath {
            files.append(("--sarif", try ReportOutput.checkWritable(sarifPath, what: "SARIF report")))
        }
        files += try ReportOutput.checkGraphOutputsWritable(dot: dotPath, svg: svgPath, html: htmlPath)
        for (index, output) in files.enumerated() {
            if let earlier = files[..<index].first(where: { $0.file.identity == output.file.identity }) {
                let same =
                    earlier.file.path == output.file.path ? "" : " (\(earlier.file.path) and \(output.file.path))"
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
        _ report: LeakReport, context: RenderContext = RenderContext(), terminal: (String) -> Void,
        fallback: ((String) -> Void)? = nil, summarize: (String) -> Void = { _ in }
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
            TextReport.render(report, options: textOptions), synopsis: ReportSynopsis(report), terminal: terminal,
            fallback: fallback, summarize: summarize, failures: &failures)
        if let junitPath {
            failures.attempt { () throws(ToolError) in
                try ReportOutput.write(
                    Data(JUnitReport.render(report, context: context).utf8), to: junitPath, what: "JUnit report")
            }
        }
        if let sarifPath {
            failures.attempt { () throws(ToolError) in
                try ReportOutput.write(
                    SARIFReport.render(report, context: context), to: sarifPath, what: "SARIF report")
            }
        }
        failures.attempt { () throws(ToolError) in
            try ReportOutput.writeGraphOutputs(
                report: report, dot: dotPath, svg: svgPath, html: htmlPath, context: context)
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
        precondition(!needsDecodedReport, "graphs, JUnit and SARIF are rendered from the decoded report")
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
            failures.record(error)
            failures.textSummaryNotWritten = true
        }
    }
}

/// The outputs that could not be written, collected so that one failure does not stop the others.
struct OutputFailures {
    private var last: ToolError?
    /// Whether the text summary's own file could not be written (it went to the terminal instead).
    var textSummaryNotWritten = false

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

    /// Throws the last failure, if any, coded ``ToolError/Code/textSummaryNotWritten`` when the text
    /// summary's file was one of them, else ``ToolError/Code/outputNotWritten``.
    func finish() throws(ToolError) {
        guard var last else { return }
        last.code = textSummaryNotWritten ? .textSummaryNotWritten : .outputNotWritten
        throw last
    }
}
