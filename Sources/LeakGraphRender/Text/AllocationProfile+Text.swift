import LeakGraphReport

extension AllocationProfile {
    /// Sites shown by the text of `leakgraph run --allocations` unless asked otherwise.
    public static let defaultTextSites = 20

    /// The profile as the text of `leakgraph run --allocations`: the totals, the `limit` sites that made
    /// the most objects, and every type (ending with a newline).
    ///
    /// ```
    /// ALLOCATIONS: 1,205 objects made (61,440 bytes); 12 alive at exit (384 bytes)
    ///      objects       bytes   alive  type and creation site
    ///        1,000      32,000       0  Widget at Widgets.swift:9 in makeWidgets(_:)
    /// ```
    public func text(sites limit: Int = defaultTextSites, end: String = "at exit") -> String {
        var lines = [
            "ALLOCATIONS: \(ReportNaming.count(objects, "object")) made (\(ReportNaming.count(bytes, "byte"))); "
                + "\(ReportNaming.grouped(aliveObjects)) alive \(end) (\(ReportNaming.count(aliveBytes, "byte")))"
        ]
        if excludedObjects > 0 {
            lines.append(
                "(not counted: \(ReportNaming.count(excludedObjects, "object")) the test libraries made for themselves, "
                    + "\(ReportNaming.count(excludedBytes, "byte")))")
        }
        guard !sites.isEmpty else { return lines.joined(separator: "\n") + "\n" }
        lines.append(Self.columns("objects", "bytes", "alive", "type and creation site"))
        for site in sites.prefix(max(0, limit)) {
            lines.append(
                Self.columns(
                    ReportNaming.grouped(site.objects), ReportNaming.grouped(site.bytes),
                    ReportNaming.grouped(site.aliveObjects), "\(ReportNaming.shortName(site.type)) at \(site.siteText)")
            )
        }
        if sites.count > limit {
            lines.append(
                "  … and \(ReportNaming.count(sites.count - limit, "more site")) (every one in the JSON and HTML reports)"
            )
        }
        lines.append("")
        lines.append("ALLOCATIONS BY TYPE")
        lines.append(Self.columns("objects", "bytes", "alive", "type"))
        let types = self.types
        for type in types.prefix(max(0, limit)) {
            lines.append(
                Self.columns(
                    ReportNaming.grouped(type.objects), ReportNaming.grouped(type.bytes),
                    ReportNaming.grouped(type.aliveObjects), type.type))
        }
        if types.count > limit {
            lines.append("  … and \(ReportNaming.count(types.count - limit, "more type"))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One row: three numbers right-aligned, then the text.
    private static func columns(_ objects: String, _ bytes: String, _ alive: String, _ text: String) -> String {
        func right(_ value: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - value.count)) + value
        }
        return "\(right(objects, 13)) \(right(bytes, 13)) \(right(alive, 9))  \(text)"
    }
}
