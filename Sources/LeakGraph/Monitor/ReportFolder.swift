import Foundation
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
        let name = Self.prefix + Self.timestamp(date) + "-" + String(format: "%06d", check) + Self.suffix
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
            .filter { $0.hasPrefix(Self.prefix) && $0.hasSuffix(Self.suffix) }
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
