import ArgumentParser
import Foundation
import LeakGraphRender
import LeakGraphReport

/// `--baseline FILE` and `--write-baseline FILE`, shared by `leakgraph run`, `leakgraph test` and
/// `leakgraph report`: read the accepted leaks before any work starts, mark the report with them, and
/// write a new baseline from the report.
///
/// The decision whether a report fails a check stays with the report (``LeakReport/newLeakedObjects``);
/// this only marks which cycles a baseline accepts (``LeakReport/applying(_:)``).
struct BaselineOptions: ParsableArguments {
    /// The baseline to check the report against, if any.
    @Option(
        name: .customLong("baseline"),
        help: ArgumentHelp(
            "Accept the leaks this baseline file lists (fingerprints, type and site patterns): they are reported "
                + "as suppressed and do not fail the run.", valueName: "file"))
    var baselinePath: String?

    /// Where to write a baseline accepting this report's leaks, if anywhere.
    @Option(
        name: .customLong("write-baseline"),
        help: ArgumentHelp(
            "Write a baseline accepting this run's leaks to this file (with --baseline: its patterns and "
                + "reasons kept); the run is then checked against it.", valueName: "file"))
    var writeBaselinePath: String?

    /// Whether neither option was given.
    var isEmpty: Bool { baselinePath == nil && writeBaselinePath == nil }

    /// Reads `--baseline` and checks that `--write-baseline` can be written, before any work starts.
    /// - Returns: The baseline, or `nil` without `--baseline`.
    /// - Throws: ``ToolError`` (exit status 2) naming the file, the line and what is wrong with it.
    func load() throws(ToolError) -> Baseline? {
        if let writeBaselinePath {
            try ReportOutput.checkWritable(writeBaselinePath, what: "baseline")
        }
        guard let baselinePath else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: baselinePath, isDirectory: &isDirectory) else {
            throw ToolError("cannot read the baseline \(baselinePath): no such file (create it with --write-baseline)")
        }
        guard !isDirectory.boolValue else {
            throw ToolError("cannot read the baseline \(baselinePath): it is a directory")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: baselinePath))
        } catch {
            throw ToolError("cannot read the baseline \(baselinePath): \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ToolError("cannot read the baseline \(baselinePath): it is not UTF-8 text")
        }
        do {
            return try Baseline.parse(text, source: baselinePath)
        } catch {
            throw ToolError("cannot read the baseline \(baselinePath): \(error.description)")
        }
    }

    /// `report` marked with the baseline it is checked against: the one `--write-baseline` writes (made
    /// from `report` and `baseline`) when asked, else `baseline`; `report` itself without either.
    /// - Throws: ``ToolError`` when the new baseline cannot be written.
    func apply(to report: LeakReport, baseline: Baseline?) throws(ToolError) -> LeakReport {
        if let writeBaselinePath {
            let written = Baseline.accepting(report, source: writeBaselinePath, keeping: baseline)
            try ReportOutput.write(Data(written.text.utf8), to: writeBaselinePath, what: "baseline")
            let fingerprints = written.entries.filter {
                if case .fingerprint = $0.rule { return true }
                return false
            }.count
            let patterns = written.entries.count - fingerprints
            let note = patterns > 0 ? " and \(patterns) \(patterns == 1 ? "pattern" : "patterns")" : ""
            printError(
                "leakgraph: wrote the baseline \(writeBaselinePath): \(fingerprints) "
                    + "\(fingerprints == 1 ? "fingerprint" : "fingerprints")\(note)")
            return Self.judged(report, by: Self.reread(written))
        }
        return baseline.map { Self.judged(report, by: $0) } ?? report
    }

    /// `report` marked by `baseline`, with one line on standard error saying what it made of the report
    /// (also when it accepted nothing, so a CI log shows which baseline was used):
    /// `leakgraph: baseline FILE: N new leaks, M suppressed by the baseline (root cycles)`.
    private static func judged(_ report: LeakReport, by baseline: Baseline) -> LeakReport {
        let marked = report.applying(baseline)
        let new = marked.newCycles.count
        let suppressed = marked.suppressedCycles.count
        printError(
            "leakgraph: baseline \(baseline.source): \(new) new \(new == 1 ? "leak" : "leaks"), \(suppressed) suppressed "
                + "by the baseline (root cycles)")
        return marked
    }

    /// `baseline` as it reads back from its file, so that the report names the entries' lines.
    private static func reread(_ baseline: Baseline) -> Baseline {
        (try? Baseline.parse(baseline.text, source: baseline.source)) ?? baseline
    }

    /// `check` marked as ``apply(to:baseline:)`` says; a check rendered by the program is returned as it
    /// is (with a baseline `leakgraph run` asks the program to render nothing, so it is always decoded).
    func apply(to check: FinishedCheck, baseline: Baseline?) throws(ToolError) -> FinishedCheck {
        guard !isEmpty, case .decoded(let report) = check else { return check }
        return .decoded(try apply(to: report, baseline: baseline))
    }
}
