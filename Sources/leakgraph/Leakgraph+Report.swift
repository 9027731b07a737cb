import ArgumentParser
import Foundation
import LeakGraphRender
import LeakGraphReport

extension Leakgraph {
    /// `leakgraph report REPORT.json [--json PATH] [--text PATH] [--dot PATH] [--svg PATH] [--html PATH]`,
    /// or `leakgraph report FOLDER [--text PATH] [--html PATH]` for a periodic run's report folder.
    ///
    /// Re-renders a JSON report that `leakgraph run --json` (or the library) wrote, offline: the program is
    /// not run again and nothing is symbolized again. Without an output option the text goes to standard
    /// output; `--dot`, `--svg` and `--html` go through ``ReportOutput/writeGraphOutputs(report:dot:svg:html:)``,
    /// the writer `leakgraph run` uses, so both commands write the same files for the same report.
    ///
    /// Exit status: 0 when everything asked for was written, **also when the report lists leaks** — the
    /// report is a file being rendered, not a check being run (`leakgraph run` is the check; its exit
    /// status says whether there were leaks). 2 when the file is missing or unreadable, is not valid JSON
    /// (damaged), is another tool's JSON, has a newer or invalid schema version, or does not match its
    /// schema version; and when an output cannot be written. Every such error is one `leakgraph: …` line
    /// on standard error.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a saved JSON leak report again, offline, or a report folder's checks over time.",
            usage: """
                leakgraph report <report.json> [--json <path>] [--text <path>] [--dot <path>] [--svg <path>] [--html <path>] \
                [--baseline <file>] [--write-baseline <file>]
                leakgraph report <folder> [--text <path>] [--html <path>]
                """,
            discussion: """
                Reads a report written by `leakgraph run --json` and renders it without running the program \
                again. With no output option the text summary goes to standard output. --json writes the \
                report again in this version's form; --dot, --svg and \
                --html write the same files as `leakgraph run` does: with several root cycles PATH gets an \
                overview and each cycle its own file (ring.svg → ring-cycle-1.svg, …).

                Given a report folder (`leakgraph run --every … --report-dir`), draws its checks.jsonl: live \
                and leaked objects, pauses and each leak's count over time with its rate, as text or, with \
                --html, as a page of charts; and names the folder's newest report.

                Exit status: 0 when the report was rendered, even when it lists leaks: the report is a file \
                being rendered, not a check (`leakgraph run` exits with 23 when it finds leaks). 2 when the \
                file is missing, damaged, not a LeakGraph report, written with a newer schema version, or \
                an output cannot be written.
                """
        )

        /// The JSON report to read.
        @Argument(
            help: ArgumentHelp(
                "The JSON report to render (from `leakgraph run --json`), or a report folder (`--report-dir`).",
                valueName: "report.json"))
        var reportPath: String

        /// Where the report goes (`--json`, `--text`, `--dot`, `--svg`, `--html`).
        @OptionGroup var outputs: OutputOptions

        /// The accepted leaks (`--baseline`, `--write-baseline`).
        @OptionGroup var baselineOptions: BaselineOptions

        /// Reads the report and writes what the options ask for.
        /// - Throws: ``ToolError`` (exit status 2) when the report cannot be read or an output not written.
        func run() throws {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: reportPath, isDirectory: &isDirectory), isDirectory.boolValue {
                return try renderFolder()
            }
            try outputs.checkWritable()
            let baseline = try baselineOptions.load()
            let report = try baselineOptions.apply(to: Report.read(reportPath), baseline: baseline)
            guard outputs.writesFiles else {
                FileHandle.standardOutput.write(Data(TextReport.render(report, options: outputs.textOptions).utf8))
                return
            }
            let context = RenderContext(
                command: (["leakgraph", "report"] + CommandLine.arguments.dropFirst(2)).map(ReportNaming.shellQuoted)
                    .joined(separator: " "),
                verdict: ReportSynopsis(report).leakSummary, sourceRoot: FileManager.default.currentDirectoryPath)
            try outputs.write(
                report, context: context, terminal: { _ in },
                fallback: { FileHandle.standardOutput.write(Data($0.utf8)) })
        }

        /// `leakgraph report FOLDER`: the checks of a periodic run (`checks.jsonl`) as text — or as an HTML
        /// page with `--html` — and the newest report of the folder named.
        /// - Throws: ``ToolError`` when the folder holds neither, a file cannot be read, or an option
        ///   renders one report only.
        func renderFolder() throws {
            let onlyOne = [
                ("--json", outputs.jsonPath), ("--dot", outputs.dotPath), ("--svg", outputs.svgPath),
                ("--junit", outputs.junitPath), ("--sarif", outputs.sarifPath),
            ].first { $0.1 != nil }
            let reports =
                (try? FileManager.default.contentsOfDirectory(atPath: reportPath))?
                .filter { $0.hasPrefix("leakgraph-") && $0.hasSuffix(".json") }.sorted() ?? []
            let newest = reports.last.map { (reportPath.hasSuffix("/") ? reportPath : reportPath + "/") + $0 }
            if let option = onlyOne {
                throw ToolError(
                    "\(option.0) renders one report: name a report of the folder"
                        + (newest.map { " (the newest is \($0))" } ?? ""))
            }
            try outputs.checkWritable()
            let history: CheckHistory?
            do {
                history = try CheckHistory.read(folder: reportPath)
            } catch {
                throw ToolError(error.description)
            }
            guard history != nil || newest != nil else {
                throw ToolError(
                    "cannot read \(reportPath): not a report folder (no \(CheckHistory.fileName), no leakgraph-*.json)")
            }
            let folder = reportPath.hasSuffix("/") ? String(reportPath.dropLast()) : reportPath
            var text =
                history.map { CheckHistoryText.render($0, folder: folder) }
                ?? "\(folder): no \(CheckHistory.fileName)\n"
            if let newest {
                let report = try Report.read(newest)
                text += "\nNewest report: \(newest)\n" + ReportSynopsis(report).leakSummary + "\n"
            }
            if let htmlPath = outputs.htmlPath {
                let page = CheckHistoryHTML.render(history ?? CheckHistory(records: []), folder: folder)
                try ReportOutput.write(Data(page.utf8), to: htmlPath, what: "HTML page")
            }
            if let textPath = outputs.textPath {
                try ReportOutput.write(Data(text.utf8), to: textPath, what: "text summary")
            } else if outputs.htmlPath == nil {
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        }

        /// Reads and decodes the JSON report at `path`.
        /// - Throws: ``ToolError`` naming the file and saying, in one line, why it cannot be used.
        static func read(_ path: String) throws(ToolError) -> LeakReport {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ToolError("cannot read \(path): no such file")
            }
            guard !isDirectory.boolValue else {
                throw ToolError("cannot read \(path): it is a directory")
            }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ToolError("cannot read \(path): \(error.localizedDescription)")
            }
            do {
                return try LeakReport.decode(from: data)
            } catch {
                throw ToolError("cannot read \(path): \(oneLine(error.message))")
            }
        }

        /// `text` with line breaks and runs of spaces folded into single spaces.
        static func oneLine(_ text: String) -> String {
            text.split(whereSeparator: { $0.isNewline || $0 == " " || $0 == "\t" }).joined(separator: " ")
        }
    }
}
