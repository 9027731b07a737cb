import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport

/// The text of `leakgraph snapshot`: a heap snapshot's histogram, biggest dominators and
/// accumulation points (``SnapshotSummary``), why objects are alive, and the comparison of two
/// snapshots.
public enum SnapshotText {
    /// `12.3 MB`, `4.5 KB`, `312 bytes`: bytes for people (powers of 1,000).
    public static func bytes(_ value: UInt64) -> String {
        let units: [(Double, String)] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")]
        for (size, unit) in units where Double(value) >= size {
            let scaled = Double(value) / size
            return (scaled >= 100 ? String(Int(scaled.rounded())) : oneDecimal(scaled)) + " " + unit
        }
        return ReportNaming.count(Int(value), "byte")
    }

    /// `12.5 %`.
    public static func percent(_ share: Double) -> String {
        oneDecimal(share * 100) + " %"
    }

    /// `12.5`: one digit after the point, rounded half away from zero (no Foundation formatter: the
    /// preload checker links FoundationEssentials only).
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((abs(value) * 10).rounded())
        return (value < 0 && tenths != 0 ? "-" : "") + "\(tenths / 10).\(tenths % 10)"
    }

    /// The heading lines of a snapshot: the program, the time, and the totals.
    public static func heading(_ summary: SnapshotSummary) -> [String] {
        let command = ([summary.program] + summary.arguments.map(ReportNaming.shellQuoted)).joined(separator: " ")
        var lines = ["Snapshot of \(command.isEmpty ? "?" : command) taken \(summary.time)"]
        if summary.origin == HeapSnapshot.Info.Origin.leakReport.rawValue {
            lines.append("(a leak report: its leaked objects alone)")
        }
        lines.append(
            "\(ReportNaming.count(summary.objects, "object")), \(bytes(summary.bytes)); "
                + "\(ReportNaming.count(summary.references, "reference")); \(ReportNaming.count(summary.roots, "root")); "
                + "\(ReportNaming.grouped(summary.leakedObjects)) leaked (\(bytes(summary.leakedBytes)))")
        return lines
    }

    /// The whole text of `leakgraph snapshot FILE`.
    public static func render(_ summary: SnapshotSummary) -> String {
        var lines = heading(summary)
        lines.append("")
        let header = summary.groupedBy == HeapSnapshot.Grouping.site.rawValue ? "CREATION SITE" : "TYPE"
        lines.append(
            contentsOf: table(
                [["", "count", "shallow", "retained", "leaked"]]
                    + summary.rows.map { row in
                        [
                            displayName(row.name, grouping: summary.groupedBy, among: summary.rows.map(\.name)),
                            ReportNaming.grouped(row.count),
                            bytes(row.shallowBytes), bytes(row.retainedBytes),
                            row.leaked > 0 ? ReportNaming.grouped(row.leaked) : "",
                        ]
                    }, title: "\(header)S BY RETAINED SIZE"))
        if summary.moreRows > 0 {
            lines.append("   … \(ReportNaming.count(summary.moreRows, "more row")) (--top N shows more)")
        }
        if !summary.dominators.isEmpty {
            lines.append("")
            lines.append("BIGGEST DOMINATORS (the top of the dominator tree: what freeing each object would free)")
            for dominator in summary.dominators {
                lines.append(
                    "   \(ReportNaming.shortName(dominator.type)) (\(dominator.address)) retains \(bytes(dominator.retainedBytes)) "
                        + "(\(percent(dominator.share))) — \(dominator.heldBy)")
            }
        }
        lines.append("")
        if summary.accumulationPoints.isEmpty {
            lines.append(
                "ACCUMULATION POINTS: none (no object retains 10 % of the bytes or holds 100 objects of one type)")
        } else {
            lines.append("ACCUMULATION POINTS (where memory piles up)")
            for point in summary.accumulationPoints {
                var line =
                    "   \(ReportNaming.shortName(point.type)) (\(point.address)) retains \(bytes(point.retainedBytes)) (\(percent(point.share)))"
                if point.holderAddress != point.address {
                    line += ", inside \(ReportNaming.shortName(point.holderType)) (\(point.holderAddress))"
                }
                lines.append(line)
                if let child = point.childType {
                    lines.append(
                        "      holding \(ReportNaming.grouped(point.childCount)) \(ReportNaming.shortName(child)) "
                            + "(\(bytes(point.childBytes)) retained)")
                }
            }
        }
        if !summary.diagnostics.isEmpty {
            lines.append("")
            lines.append("NOT READ EXACTLY (their targets count as held)")
            for diagnostic in summary.diagnostics.prefix(20) {
                lines.append(
                    "   \(diagnostic.typeName) × \(ReportNaming.grouped(diagnostic.objectCount)): \(diagnostic.reason)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The text of a comparison of two snapshots (`leakgraph snapshot NEW --compare OLD`): the groups that
    /// changed, most growth first, at most `top` of them.
    public static func render(
        _ comparison: SnapshotComparison, old: SnapshotSummary, new: SnapshotSummary, grouping: HeapSnapshot.Grouping,
        top: Int
    ) -> String {
        var lines = ["Comparing \(old.time) (old) with \(new.time) (new)"]
        lines.append(
            "objects: \(ReportNaming.grouped(old.objects)) → \(ReportNaming.grouped(new.objects)) "
                + "(\(ReportNaming.grouped(comparison.keptObjects)) in both, \(ReportNaming.grouped(comparison.addedObjects)) new, "
                + "\(ReportNaming.grouped(comparison.removedObjects)) gone); bytes: \(bytes(old.bytes)) → \(bytes(new.bytes))"
        )
        lines.append("")
        let changed = comparison.rows.filter { $0.change != .unchanged }
        let names = changed.map(\.key)
        let header = grouping == .site ? "CREATION SITE" : "TYPE"
        lines.append(
            contentsOf: table(
                [["", "change", "count", "bytes", "new objects"]]
                    + changed.prefix(max(top, 0)).map { row in
                        [
                            displayName(row.key, grouping: grouping.rawValue, among: names), row.change.rawValue,
                            "\(ReportNaming.grouped(row.oldCount)) → \(ReportNaming.grouped(row.newCount))",
                            "\(signedBytes(row.byteDelta)) (\(bytes(row.newBytes)))", ReportNaming.grouped(row.added),
                        ]
                    }, title: "\(header)S THAT CHANGED, MOST GROWTH FIRST"))
        if changed.isEmpty {
            lines.append("   nothing changed")
        } else if changed.count > top {
            lines.append("   … \(ReportNaming.count(changed.count - top, "more row")) (--top N shows more)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `+1.2 KB`, `-300 bytes`, `0 bytes`.
    public static func signedBytes(_ delta: Int64) -> String {
        delta > 0 ? "+" + bytes(UInt64(delta)) : delta < 0 ? "-" + bytes(UInt64(-delta)) : "0 bytes"
    }

    private static func displayName(_ name: String, grouping: String, among names: [String]) -> String {
        grouping == HeapSnapshot.Grouping.type.rawValue ? (ReportNaming.displayNames(for: names)[name] ?? name) : name
    }

    /// Rows as aligned columns under `title`: the first column left-aligned, the others right-aligned.
    private static func table(_ rows: [[String]], title: String) -> [String] {
        guard let first = rows.first else { return [] }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
        widths[0] = min(max(widths[0], title.count), 70)
        return rows.enumerated().map { index, row in
            let name = index == 0 ? title : row[0]
            let clipped = name.count > widths[0] ? String(name.prefix(widths[0] - 1)) + "…" : name
            var line = "   " + clipped + String(repeating: " ", count: max(0, widths[0] - clipped.count))
            for column in 1..<row.count {
                line += "  " + String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }
            let trimmed = String(line.reversed().drop { $0 == " " }.reversed())
            return index == 0 ? String(trimmed.dropFirst(3)) : trimmed
        }
    }
}
