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

    /// The version this library writes and reads.
    public static let currentVersion = 1

    /// The synopsis of `report`, with the words of what was written.
    public init(_ report: LeakReport, rendered: [String] = []) {
        self.version = ReportSynopsis.currentVersion
        self.program = report.program
        self.summary = report.summary
        self.leakedObjectsOutsideLibraries = report.leakedObjectsOutsideLibraries
        self.rendered = rendered
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
