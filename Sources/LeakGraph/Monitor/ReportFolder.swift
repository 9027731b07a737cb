#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraphReport

/// A folder of JSON reports (or heap snapshots) that keeps the newest few: `leakgraph-<UTC
/// time>-<check>.json` (`.lgsnap`), names that sort in the order they were written.
struct ReportFolder {
    /// The folder.
    let path: String
    /// How many reports it keeps (at least 1).
    let kept: Int
    /// The suffix of the files the folder owns (with the prefix, no other file is ever removed).
    var suffix = ReportFolder.suffix

    /// The prefix and the reports' suffix of the files the folder owns.
    static let prefix = "leakgraph-"
    static let suffix = ".json"

    /// Creates the folder (when missing), lets `write` write the file of check `check` made at `date`
    /// (at the path it is given, which it must replace whole), then removes the oldest files beyond
    /// ``kept``. Returns the path written.
    func place(date: Date, check: Int, write: (String) throws -> Void) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let name = Self.prefix + Self.timestamp(date) + "-" + Self.sixDigits(check) + suffix
        let file = Self.join(path, name)
        try write(file)
        try removeOldReports()
        return file
    }

    /// Writes `report` (through a `.partial` name and a rename), then removes the oldest reports
    /// beyond ``kept``. Returns the path written.
    func write(_ report: LeakReport, date: Date, check: Int) throws -> String {
        let manager = FileManager.default
        try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
        let name = Self.prefix + Self.timestamp(date) + "-" + Self.sixDigits(check) + suffix
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
            .filter { $0.hasPrefix(Self.prefix) && $0.hasSuffix(suffix) }
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
