import LeakGraphReport

extension GraphBuilder {
    /// The end of an edge's tooltip that says where its reference was stored (`--history`): a new line and
    /// `Stored at main.swift:14 in Member.join(_:)`, or `Stored: not known (…)`; empty without a store site.
    static func storeSiteTooltip(_ reference: LeakReport.LeakReference) -> String {
        reference.storeSite.map { "\n" + ReportNaming.storeSiteText($0) } ?? ""
    }
}
