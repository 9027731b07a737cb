import LeakGraphReport

extension TextRenderer {
    /// Appends, under a suspect or another cut, where its reference was stored (when its target's
    /// retains were recorded, `--history`): `     Stored at main.swift:14 in Member.join(_:)`, and for a
    /// closure context `     Captured at …` (its creation: where the closure was formed).
    mutating func renderStoreSite(_ edge: SuspectEdge) {
        let reference = report.references[edge.reference]
        if let storeSite = reference.storeSite {
            lines.append("      " + ReportNaming.storeSiteText(storeSite))
        }
        let target = report.leaks[edge.to]
        if reference.path.isClosure, target.kind == "closureContext",
            let site = ReportNaming.creationSite(target.backtrace)
        {
            lines.append(
                "      Captured at \(site.place.map { "\($0) in " } ?? "")\(ReportNaming.shortFunctionName(site.function)) (where the closure was formed)"
            )
        }
    }
}
