import FoundationEssentials

/// The few facts about a report that `leakgraph run` needs when the checked program rendered the
/// report's files itself: the program the JSON report names, the totals (for the text summary's
/// header and the one-line note), the leaked objects that fail a check, and what was written.
///
/// The preload library writes it beside the report at exit (`<output>.synopsis`, see
/// `CLeakGraphContract.h`); the CLI reads it instead of decoding the whole report, and copies the
/// program's JSON report only when ``program`` is exactly the program it ran. It is a small JSON
/// document of its own, versioned by ``version``, not part of the report schema.
public struct ReportSynopsis: Sendable, Codable, Equatable {
    /// The version of this layout; a reader uses a synopsis of another version as if there were none.
    public var version: Int
    /// The program as the JSON report names it (path, arguments, exit status).
    public var program: LeakReport.Program
    /// The report's totals.
    public var summary: LeakReport.Summary
    /// ``LeakReport/leakedObjectsOutsideLibraries``: what a check fails on.
    public var leakedObjectsOutsideLibraries: Int
    /// What was written, as the words of `LEAKGRAPH_RENDER` (`text`, `json`, `pretty-json`).
    public var rendered: [String]
    /// The report's totals by standing (``LeakReport/totals``); `nil` in a synopsis written before them.
    public var totals: LeakReport.Totals?

    /// The version this library writes and reads.
    public static let currentVersion = 1

    /// The synopsis of `report`, with the words of what was written.
    public init(_ report: LeakReport, rendered: [String] = []) {
        self.version = ReportSynopsis.currentVersion
        self.program = report.program
        self.summary = report.summary
        self.leakedObjectsOutsideLibraries = report.leakedObjectsOutsideLibraries
        self.rendered = rendered
        self.totals = report.totals
    }

    /// One clause saying what was leaked, for the lines that end a check: the checked code's own leaks
    /// (`6 leaked objects (249 bytes) in 3 root cycles (2 leak families)`, or `no leaks of your code`),
    /// then what a baseline accepts and the known library leaks (`not your code: 22 objects in 1 known
    /// library leak`); `no leaks found` when nothing leaked.
    public var leakSummary: String {
        guard summary.leakedObjects > 0 else { return "no leaks found" }
        guard let totals else {
            let library = summary.leakedObjects - leakedObjectsOutsideLibraries
            let note = library > 0 ? " (\(library) of them in known library leaks or accepted by the baseline)" : ""
            return
                "\(ReportNaming.count(summary.leakedObjects, "leaked object")) (\(ReportNaming.grouped(summary.leakedBytes)) bytes) in "
                + "\(ReportNaming.count(summary.rootCycles, "root cycle"))\(note)"
        }
        var parts: [String] = []
        if totals.ownObjects > 0 {
            let families =
                totals.ownFamilies < totals.ownCycles
                ? " (\(ReportNaming.count(totals.ownFamilies, "leak family", plural: "leak families")))" : ""
            parts.append(
                "\(ReportNaming.count(totals.ownObjects, "leaked object")) (\(ReportNaming.grouped(totals.ownBytes)) bytes) in "
                    + "\(ReportNaming.count(totals.ownCycles, "root cycle"))\(families)")
        } else {
            parts.append("no leaks of your code")
        }
        if totals.suppressedCycles > 0 {
            parts.append(
                "accepted by the baseline: \(ReportNaming.count(totals.suppressedObjects, "object")) in "
                    + ReportNaming.count(totals.suppressedCycles, "root cycle"))
        }
        if totals.libraryCycles > 0 {
            parts.append(
                "not your code: \(ReportNaming.count(totals.libraryObjects, "object")) in "
                    + ReportNaming.count(totals.libraryCycles, "known library leak"))
        }
        return parts.joined(separator: "; ")
    }

    /// The synopsis as compact JSON with sorted keys.
    /// - Throws: `EncodingError` (not expected: every field is a plain value).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a synopsis from JSON; `nil` for anything that is not a synopsis of ``currentVersion``.
    public static func decode(from data: Data) -> ReportSynopsis? {
        guard let synopsis = try? JSONDecoder().decode(ReportSynopsis.self, from: data),
            synopsis.version == currentVersion
        else {
            return nil
        }
        return synopsis
    }
}
