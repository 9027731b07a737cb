import FoundationEssentials
import LeakGraphReport

/// The text `leakgraph report FOLDER` prints for a periodic run's `checks.jsonl`: one line per series
/// (live objects and bytes, leaked objects and bytes, pause, check time, peak memory) with its first,
/// newest and largest value and a sparkline over time, then each leak's count over time and its rate.
public enum CheckHistoryText {
    /// The sparkline's width at most: with more checks, each column is the largest value of its share.
    public static let width = 48

    /// The text for `history` (of the folder `folder`, named in the heading).
    public static func render(_ history: CheckHistory, folder: String) -> String {
        let records = history.records
        var lines: [String] = []
        let skipped = records.count - history.ran.count
        var heading = "\(folder)/\(CheckHistory.fileName): \(ReportNaming.count(records.count, "check"))"
        if skipped > 0 { heading += " (\(skipped) skipped)" }
        if let first = records.first, let last = records.last {
            heading += ", \(clock(first.time)) → \(clock(last.time)) UTC (\(duration(history.elapsed(last))))"
        }
        lines.append(heading)
        guard !records.isEmpty else {
            return (lines + ["No check has been recorded yet."]).joined(separator: "\n") + "\n"
        }
        lines.append("")
        let ran = records.map { $0.skipped == nil }
        let count: (Int) -> String = ReportNaming.grouped
        let bytes: (Int) -> String = { SnapshotText.bytes(UInt64(max($0, 0))) }
        func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
        var rows: [(name: String, values: [Int], format: (Int) -> String)] = []
        rows.append(("live objects", records.map(\.liveObjects), count))
        rows.append(("live bytes", records.map(\.liveBytes), bytes))
        rows.append(("leaked objects", records.map(\.leakedObjects), count))
        rows.append(("leaked bytes", records.map(\.leakedBytes), bytes))
        rows.append(("pause (ms)", records.map { milliseconds($0.pauseSeconds) }, count))
        rows.append(("check (ms)", records.map { milliseconds($0.durationSeconds) }, count))
        rows.append(("peak memory", records.map(\.peakResidentBytes), bytes))
        var table: [[String]] = [["", "first", "newest", "largest", "over time (0 to the largest)"]]
        for row in rows {
            let values: [Int?] = zip(row.values, ran).map { $1 ? $0 : nil }
            let present = values.compactMap { $0 }
            table.append([
                row.name, present.first.map(row.format) ?? "–", present.last.map(row.format) ?? "–",
                present.max().map(row.format) ?? "–", sparkline(values),
            ])
        }
        lines += aligned(table)
        let leaks = history.leakSeries
        lines.append("")
        if leaks.isEmpty {
            lines.append("No leak confirmed by any check.")
        } else {
            lines.append("Leaks, by fingerprint (root cycles at each check; the most objects first):")
            for series in leaks {
                let last = series.last
                var line =
                    "  \(ReportNaming.shortName(series.type))  \(series.fingerprint)  now "
                    + "\(ReportNaming.count(last.cycles, "cycle")), \(ReportNaming.count(last.objects, "object")), "
                    + SnapshotText.bytes(UInt64(max(last.bytes, 0)))
                if let rate = history.cyclesPerMinute(series) {
                    line += ", \(rate >= 0 ? "+" : "")\(decimal(rate)) cycles a minute"
                }
                if let seen = series.firstSeen { line += "; first seen \(clock(seen))" }
                lines.append(line)
                lines.append("    " + sparkline(series.cycles))
            }
        }
        if !history.unreadLines.isEmpty {
            lines.append("")
            lines.append(
                "Not read (not a check record): "
                    + ReportNaming.list(history.unreadLines, limit: 3))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `values` as block characters from `▁` (0) to `█` (the largest), one per check or, past
    /// ``width`` checks, the largest of each column's share; `·` where no check measured a value.
    public static func sparkline(_ values: [Int?]) -> String {
        guard !values.isEmpty else { return "" }
        let blocks = Array("▁▂▃▄▅▆▇█")
        let columns = min(values.count, width)
        let largest = values.compactMap { $0 }.max() ?? 0
        var text = ""
        for column in 0..<columns {
            let range = (column * values.count / columns)..<((column + 1) * values.count / columns)
            guard let value = values[range].compactMap({ $0 }).max() else {
                text.append("·")
                continue
            }
            let level = largest <= 0 ? 0 : Int((Double(max(value, 0)) / Double(largest) * 7).rounded())
            text.append(blocks[min(max(level, 0), 7)])
        }
        return text
    }

    /// `HH:MM:SS` of an ISO 8601 time (the text itself when it is not one).
    static func clock(_ time: String) -> String {
        guard let tee = time.firstIndex(of: "T") else { return time }
        return String(time[time.index(after: tee)...].prefix(8))
    }

    /// `12.5 s`, `3 min 20 s`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return decimal(seconds) + " s" }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }

    /// One decimal place, without a trailing `.0`; a whole number, grouped, from 100 on.
    static func decimal(_ value: Double) -> String {
        if abs(value) >= 100 { return ReportNaming.grouped(Int(value.rounded())) }
        let tenths = Int((value * 10).rounded())
        let text = "\(tenths / 10).\(abs(tenths % 10))"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : (tenths < 0 && tenths > -10 ? "-" + text : text)
    }

    /// Rows as columns: the first left-aligned, the numbers right-aligned, the last as it is.
    static func aligned(_ rows: [[String]]) -> [String] {
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            var line = row[0] + String(repeating: " ", count: widths[0] - row[0].count)
            for column in 1..<4 {
                line += "  " + String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }
            return line + "  " + row[4]
        }
    }
}
