import FoundationEssentials
import LeakGraphReport

extension GenerationGrowth {
    /// The growth as text: a heading with the totals, then one line per group —
    /// `CacheEntry × 1,000 (48,000 bytes) created at main.swift:12 in Cache.insert(_:)`.
    public var text: String {
        let tenths = max(0, Int((until.timeIntervalSince(since) * 10).rounded()))
        var lines = [
            "GROWTH SINCE THE MARK (\(tenths / 10).\(tenths % 10) s): "
                + "\(ReportNaming.count(objects, "object")), \(ReportNaming.count(bytes, "byte")) still alive"
        ]
        for row in rows {
            var line =
                "   \(ReportNaming.shortName(row.type)) × \(ReportNaming.grouped(row.count)) (\(ReportNaming.count(row.bytes, "byte")))"
            switch (row.site, row.function) {
            case (let site?, let function?): line += " created at \(site) in \(function)"
            case (nil, let function?): line += " created in \(function)"
            default: line += " (no creation stack)"
            }
            lines.append(line)
        }
        if groups > rows.count {
            lines.append("   … and \(groups - rows.count) smaller groups")
        }
        return lines.joined(separator: "\n")
    }
}
