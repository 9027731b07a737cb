import Foundation
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
        let name = Self.prefix + Self.timestamp(date) + "-" + String(format: "%06d", check) + suffix
        let file = (path as NSString).appendingPathComponent(name)
        try write(file)
        try removeOldReports()
        return file
    }

    /// Writes `report` (through a `.partial` name and a rename), then removes the oldest reports
    /// beyond ``kept``. Returns the path written.
    func write(_ report: LeakReport, date: Date, check: Int) throws -> String {
        let manager = FileManager.default
        try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
        let name = Self.prefix + Self.timestamp(date) + "-" + String(format: "%06d", check) + suffix
        let file = (path as NSString).appendingPathComponent(name)
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
            .map { (path as NSString).appendingPathComponent($0) }
    }

    private func removeOldReports() throws {
        let reports = try reports()
        for old in reports.dropLast(max(1, kept)) {
            try? FileManager.default.removeItem(atPath: old)
        }
    }

    /// `20261123T181502.123Z`: UTC, sortable, no colons.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter.string(from: date)
    }
}
