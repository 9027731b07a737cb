import LeakGraphReport

/// The HTML report's allocation section (`leakgraph run --allocations`): the totals, every creation
/// site with its type, objects and bytes made and objects alive at exit, the most objects first, then
/// every type.
enum HTMLAllocationSection {
    /// The section's lines.
    static func lines(_ profile: AllocationProfile) -> [String] {
        func e(_ text: String) -> String { HTMLText.escaped(text) }
        func number(_ value: Int) -> String { "<td class=\"num\">\(ReportNaming.grouped(value))</td>" }
        var html: [String] = []
        html.append("<section id=\"allocations\">")
        html.append(
            "<h2>Allocations <small>\(e(ReportNaming.count(profile.objects, "object"))) made, "
                + "\(e(ReportNaming.count(profile.bytes, "byte"))); \(e(ReportNaming.grouped(profile.aliveObjects))) alive at exit</small></h2>"
        )
        html.append(
            "<p class=\"muted\">Every Swift heap object the program made, by type and creation site (the frame a leak "
                + "report names). Alive: still allocated when the program exited.</p>")
        html.append(
            "<table><thead><tr><th class=\"num\">Objects</th><th class=\"num\">Bytes</th><th class=\"num\">Alive</th>"
                + "<th>Type</th><th>Created at</th></tr></thead><tbody>")
        for site in profile.sites {
            let function =
                site.function.map { "<code title=\"\(e($0))\">\(e(AllocationProfile.shortFunction($0)))</code>" } ?? ""
            let place = site.file.map { e(ReportNaming.place(file: $0, line: site.line)) + " in " } ?? ""
            html.append(
                "<tr>\(number(site.objects))\(number(site.bytes))\(number(site.aliveObjects))"
                    + "<td style=\"overflow-wrap:anywhere\"><code>\(e(site.type))</code></td>"
                    + "<td style=\"overflow-wrap:anywhere\">\(site.function == nil ? "(no creation stack)" : place + function)</td></tr>"
            )
        }
        html.append("</tbody></table>")
        html.append("<h3>By type</h3>")
        html.append(
            "<table><thead><tr><th class=\"num\">Objects</th><th class=\"num\">Bytes</th><th class=\"num\">Alive</th>"
                + "<th class=\"num\">Alive bytes</th><th>Type</th></tr></thead><tbody>")
        for type in profile.types {
            html.append(
                "<tr>\(number(type.objects))\(number(type.bytes))\(number(type.aliveObjects))\(number(type.aliveBytes))"
                    + "<td style=\"overflow-wrap:anywhere\"><code>\(e(type.type))</code></td></tr>")
        }
        html.append("</tbody></table>")
        html.append("</section>")
        return html
    }
}
