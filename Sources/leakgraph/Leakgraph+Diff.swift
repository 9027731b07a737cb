import ArgumentParser
import Foundation
import LeakGraphRender
import LeakGraphReport

extension Leakgraph {
    /// `leakgraph diff OLD.json NEW.json [--json PATH]`: what changed between two saved reports of the
    /// same program (``ReportDiff``), for CI jobs that compare a branch with its base.
    ///
    /// Exit status: 1 when the new report has a kind of root cycle (by fingerprint) the old one does not,
    /// or more of one (outside known library leaks); 0 otherwise; 2 when a report cannot be read or the
    /// JSON cannot be written.
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two saved leak reports: new, grown and gone leaks, by fingerprint and by type.",
            usage: "leakgraph diff <old.json> <new.json> [--json <path>]",
            discussion: """
                Root cycles are matched by fingerprint (their shape: types and labels, no addresses), so \
                the same leak in two runs is the same kind; leaked objects are also compared by type. \
                The text goes to standard output; --json writes the comparison as JSON.

                Exit status: 1 when NEW has a leak OLD does not have, or more of one (known library leaks \
                aside); 0 otherwise; 2 when a report cannot be read or the JSON cannot be written.
                """
        )

        /// The earlier report.
        @Argument(help: ArgumentHelp("The earlier report (from `leakgraph run --json`).", valueName: "old.json"))
        var oldPath: String

        /// The later report.
        @Argument(help: ArgumentHelp("The later report.", valueName: "new.json"))
        var newPath: String

        /// Where the comparison goes as JSON.
        @Option(name: .customLong("json"), help: ArgumentHelp("Also write the comparison as JSON.", valueName: "path"))
        var jsonPath: String?

        /// Reads both reports, prints the comparison and exits with its verdict.
        /// - Throws: ``ToolError`` (exit status 2); `ExitCode(1)` when there are new or grown leaks.
        func run() throws {
            if let jsonPath {
                try ReportOutput.checkWritable(jsonPath, what: "comparison")
            }
            let diff = ReportDiff(old: try Report.read(oldPath), new: try Report.read(newPath))
            FileHandle.standardOutput.write(Data(diff.text.utf8))
            if let jsonPath {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data: Data
                do {
                    data = try encoder.encode(diff)
                } catch {
                    throw ToolError("cannot encode the comparison: \(error)")
                }
                try ReportOutput.write(data, to: jsonPath, what: "comparison")
            }
            if !diff.newLeaks.isEmpty || !diff.grownLeaks.isEmpty {
                throw ExitCode(1)
            }
        }
    }
}
