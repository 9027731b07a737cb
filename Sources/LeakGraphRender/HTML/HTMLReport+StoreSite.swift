import LeakGraphReport

extension HTMLReport {
    /// Where the reference of a suspect or another cut was stored (`--history`), as a paragraph under its
    /// fix: `Stored at main.swift:14 in Member.join(_:)`, or `Stored: not known (…); candidates …` with
    /// each candidate's stack in a `<details>`. Empty without a store site.
    static func storeSiteHTML(_ cut: LeakReport.Suspect, index: ReportIndex) -> String {
        guard let reference = index.referenceIndex(of: cut), let site = index.report.references[reference].storeSite
        else {
            return ""
        }
        let e = { (text: String) in HTMLText.escaped(text) }
        var html = "<p class=\"stored\">\(e(ReportNaming.storeSiteText(site)))</p>"
        let stacks = site.known ? [site.site].compactMap { $0 } : site.candidates ?? []
        for retain in stacks where !retain.stack.isEmpty {
            let frames = retain.stack.map { frame in
                "<li><code>\(e(frame.function))</code>\(frame.file.map { " — \(e(ReportNaming.place(file: $0, line: frame.line)))" } ?? "")</li>"
            }
            let title = retain.frame.map { ReportNaming.retainPlace($0) } ?? "stack"
            html +=
                "<details class=\"stored-stack\"><summary>\(e(retain.evidence)) stack: \(e(title))</summary><ol>\(frames.joined())</ol></details>"
        }
        return html
    }
}
