#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import LeakGraphReport

/// A folder of JSON reports that keeps the newest few: `leakgraph-<UTC time>-<check>.json`, names that
/// sort in the order they were written.
struct ReportFolder {
    /// The folder.
    let path: String
    /// How many reports it keeps (at least 1).
    let kept: Int

    /// The prefix and suffix of the files the folder owns; no other file is ever removed.
    static let prefix = "leakgraph-"
    static let suffix = ".json"

    /// Writes `report` (through a `.partial` name and a rename), then removes the oldest reports
    /// beyond ``kept``. Returns the path written.
    func write(_ report: LeakReport, date: Date, check: Int) throws -> String {
        let manager = FileManager.default
        try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
        let name = Self.prefix + Self.timestamp(date) + "-" + Self.sixDigits(check) + Self.suffix
        let file = Self.join(path, name)
        let partial = file + ".partial"
        try report.jsonData().write(to: URL(fileURLWithPath: partial))
        if manager.fileExists(atPath: file) { try manager.removeItem(atPath: file) }
        try manager.moveItem(atPath: partial, toPath: file)
        try removeOldReports()
        return file
    }

    /// The reports in the folder, oldest first.
    func reports() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasPrefix(Self.prefix) && $0.hasSuffix(Self.suffix) }
            .sorted()
            .map { Self.join(path, $0) }
    }

    private func removeOldReports() throws {
        let reports = try reports()
        for old in reports.dropLast(max(1, kept)) {
            try? FileManager.default.removeItem(atPath: old)
        }
    }

    /// `000042`: a check number in six digits at least.
    static func sixDigits(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// `folder/name` (one slash between them).
    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// `20261123T181502.123Z`: UTC, sortable, no colons.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + digits(parts.tm_mon + 1, 2) + digits(parts.tm_mday, 2) + "T"
            + digits(parts.tm_hour, 2) + digits(parts.tm_min, 2) + digits(parts.tm_sec, 2) + "."
            + digits(Int32(milliseconds % 1000), 3) + "Z"
    }
}
