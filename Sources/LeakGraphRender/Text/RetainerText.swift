import LeakGraphReport

/// The text of a ``RetainerQuery``: the "WHY IS … ALIVE" section of the text report.
public enum RetainerText {
    /// The section's lines: a heading with the counts, then each chain
    /// (``RetainerChain/textLines(indent:)``) with its one-line summary.
    public static func lines(of query: RetainerQuery) -> [String] {
        var lines = ["WHY IS \(query.type) ALIVE? \(counts(of: query))"]
        for chain in query.chains {
            lines.append("   " + chain.summaryLine)
            lines.append(contentsOf: chain.textLines(indent: 3))
        }
        return lines
    }

    /// `— 3 live objects: 1 leaked (see the leaks above), 2 held by a root` and the like.
    private static func counts(of query: RetainerQuery) -> String {
        guard query.matched > 0 else { return "— no live object of this type." }
        let types = query.matchedTypes ?? []
        // The types are listed when the name stood for more than one, or for one it does not spell.
        let spelled = types.count == 1 && (types[0] == query.type || ReportNaming.shortName(types[0]) == query.type)
        let named =
            types.count > 1 || (types.count == 1 && !spelled)
            ? "\(ReportNaming.count(types.count, "type")) (\(types.map(ReportNaming.shortName).joined(separator: ", "))), "
            : ""
        var parts: [String] = []
        if query.leaked > 0 {
            parts.append("\(query.leaked) leaked (see the leaks above)")
        }
        let held = query.matched - query.leaked
        if held > 0 {
            let shown = query.chains.count < held ? ", \(query.chains.count) shown" : ""
            parts.append("\(held) held by a root\(shown)")
        }
        return "— \(named)\(ReportNaming.count(query.matched, "live object")): " + parts.joined(separator: ", ")
    }
}
