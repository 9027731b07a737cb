import LeakGraphReport

extension AllocationDiff {
    /// Sites and types listed per section of the text (the JSON has them all).
    public static let textLimit = 25

    /// The diff's text: the totals, the sites that allocate more, those that allocate less, and the
    /// types that changed (ending with a newline).
    ///
    /// ```
    /// ALLOCATIONS: 1,520 → 2,520 objects (+1,000), 302,733 → 326,733 bytes (+24,000); alive at exit 5 → 5
    ///
    /// SITES THAT ALLOCATE MORE
    ///   +1,000 (+24,000 bytes)  Widget at main.swift:29 in makeWidgets(_:)  (1,000 → 2,000)
    /// ```
    public var text: String {
        var lines = [
            "ALLOCATIONS: \(ReportNaming.grouped(oldObjects)) → \(ReportNaming.grouped(newObjects)) objects "
                + "(\(ReportDiff.signed(newObjects - oldObjects))), \(ReportNaming.grouped(oldBytes)) → "
                + "\(ReportNaming.grouped(newBytes)) bytes (\(ReportDiff.signed(newBytes - oldBytes))); alive at exit "
                + "\(ReportNaming.grouped(oldAlive)) → \(ReportNaming.grouped(newAlive))"
        ]
        func section(_ title: String, _ rows: [SiteChange]) {
            guard !rows.isEmpty else { return }
            lines.append("")
            lines.append(title)
            for change in rows.prefix(Self.textLimit) {
                lines.append(
                    "  \(ReportDiff.signed(change.newObjects - change.oldObjects)) (\(ReportDiff.signed(change.newBytes - change.oldBytes)) bytes)  "
                        + "\(ReportNaming.shortName(change.type)) at \(change.site.siteText)  "
                        + "(\(ReportNaming.grouped(change.oldObjects)) → \(ReportNaming.grouped(change.newObjects)))")
            }
            if rows.count > Self.textLimit {
                lines.append("  … and \(ReportNaming.count(rows.count - Self.textLimit, "more site"))")
            }
        }
        section("SITES THAT ALLOCATE MORE", grownSites)
        section("SITES THAT ALLOCATE LESS", sites.filter { $0.newObjects < $0.oldObjects }.reversed())
        let other = sites.filter { $0.newObjects == $0.oldObjects }
        if !other.isEmpty {
            lines.append("")
            lines.append(
                "\(ReportNaming.count(other.count, "site")) made as many objects, with other bytes or alive objects.")
        }
        ReportDiff.appendTypes(Array(types.prefix(Self.textLimit)), titled: "ALLOCATIONS BY TYPE", to: &lines)
        return lines.joined(separator: "\n") + "\n"
    }
}
