import ArgumentParser
import Foundation
import LeakGraphReport

/// `--allocations`, `--allocation-thresholds FILE`, `--write-allocation-thresholds FILE` and
/// `--allocation-tolerance PERCENT` of `leakgraph test`: count what each test allocates, and fail the
/// run when a test allocates more than a thresholds file recorded for it plus the tolerance, naming the
/// types and sites that grew (docs/allocations.md).
///
/// The decision lives in ``AllocationThresholds/check(_:tolerancePercent:)`` (LeakGraphReport); this
/// reads and writes the file and prints what it found.
struct AllocationThresholdOptions: ParsableArguments {
    /// Whether each test's allocations are counted (also implied by the two files).
    @Flag(
        name: .customLong("allocations"),
        help: ArgumentHelp(
            "Count what each test allocates (objects and bytes by type and creation site), and every allocation "
                + "of each run, into the report."))
    var allocations = false

    /// The recorded counts to check against.
    @Option(
        name: .customLong("allocation-thresholds"),
        help: ArgumentHelp(
            "Fail when a test allocates more objects than this file recorded for it, plus the tolerance (the "
                + "grown types and sites are named). Implies --allocations.", valueName: "file"))
    var thresholdsPath: String?

    /// Where to record this run's counts.
    @Option(
        name: .customLong("write-allocation-thresholds"),
        help: ArgumentHelp(
            "Write each test's allocation count to this file, as the thresholds later runs are checked against. "
                + "Implies --allocations.", valueName: "file"))
    var writeThresholdsPath: String?

    /// The tolerance, overriding the file's.
    @Option(
        name: .customLong("allocation-tolerance"),
        help: ArgumentHelp(
            "How far over its recorded count a test may go, in percent (default: the file's, 0 when written).",
            valueName: "percent"))
    var tolerancePercent: Double?

    /// Whether allocations are counted.
    var isCounting: Bool { allocations || thresholdsPath != nil || writeThresholdsPath != nil }

    /// Rejects a negative or non-finite tolerance (a usage error).
    func validate() throws {
        if let tolerancePercent, !(tolerancePercent.isFinite && tolerancePercent >= 0) {
            throw ValidationError("--allocation-tolerance must be a percentage of 0 or more, not \(tolerancePercent)")
        }
        if tolerancePercent != nil && thresholdsPath == nil && writeThresholdsPath == nil {
            throw ValidationError(
                "--allocation-tolerance needs --allocation-thresholds or --write-allocation-thresholds")
        }
    }

    /// Reads `--allocation-thresholds` and checks that `--write-allocation-thresholds` can be written,
    /// before any work starts.
    /// - Throws: ``ToolError`` (exit status 2) naming the file and what is wrong with it.
    func load() throws(ToolError) -> AllocationThresholds? {
        if let writeThresholdsPath {
            try ReportOutput.checkWritable(writeThresholdsPath, what: "allocation thresholds")
        }
        guard let thresholdsPath else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: thresholdsPath, isDirectory: &isDirectory) else {
            throw ToolError(
                "cannot read the allocation thresholds \(thresholdsPath): no such file (record it with --write-allocation-thresholds)"
            )
        }
        guard !isDirectory.boolValue else {
            throw ToolError("cannot read the allocation thresholds \(thresholdsPath): it is a directory")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: thresholdsPath))
        } catch {
            throw ToolError("cannot read the allocation thresholds \(thresholdsPath): \(error.localizedDescription)")
        }
        do {
            return try AllocationThresholds.parse(data)
        } catch {
            throw ToolError("cannot read the allocation thresholds \(thresholdsPath): \(error.description)")
        }
    }

    /// Writes the thresholds of `report` when asked, and checks it against `thresholds`: prints each
    /// test over its limit with what grew, and one line for the whole check. Returns whether a test
    /// went over its limit.
    /// - Throws: ``ToolError`` when the report has no per-test counts, or the file cannot be written.
    func judge(_ report: LeakReport, against thresholds: AllocationThresholds?) throws(ToolError) -> Bool {
        guard thresholdsPath != nil || writeThresholdsPath != nil else { return false }
        guard let tests = report.testAllocations else {
            throw ToolError("the test runs counted no allocations per test (the preloaded library does not count them)")
        }
        if let writeThresholdsPath {
            let written = AllocationThresholds(
                recording: tests, tolerancePercent: tolerancePercent ?? thresholds?.tolerancePercent ?? 0)
            try ReportOutput.write(Data(written.text.utf8), to: writeThresholdsPath, what: "allocation thresholds")
            printError(
                "leakgraph: wrote the allocation thresholds \(writeThresholdsPath): \(ReportNaming.count(written.tests.count, "test"))"
            )
        }
        guard let thresholds, let thresholdsPath else { return false }
        let verdict = thresholds.check(tests, tolerancePercent: tolerancePercent)
        for excess in verdict.excesses {
            printError("leakgraph: allocations grew: " + excess.text)
        }
        let tolerance = tolerancePercent ?? thresholds.tolerancePercent
        let percent = tolerance == tolerance.rounded() ? ReportNaming.grouped(Int(tolerance)) : String(tolerance)
        let unrecorded =
            verdict.unrecorded.isEmpty
            ? "" : ", \(ReportNaming.count(verdict.unrecorded.count, "test")) without a recorded count"
        printError(
            "leakgraph: allocation thresholds \(thresholdsPath) (tolerance \(percent)%): "
                + "\(ReportNaming.count(verdict.excesses.count, "test")) over \(verdict.excesses.count == 1 ? "its limit" : "their limits") "
                + "of \(ReportNaming.grouped(verdict.checked)) checked\(unrecorded)")
        return !verdict.excesses.isEmpty
    }
}
