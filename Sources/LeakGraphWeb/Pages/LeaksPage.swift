import Foundation
import LeakGraphAnalysis
import LeakGraphGraphviz
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport

extension SnapshotSite {
    /// The leak report of the snapshot's leaked objects: their graph analysed as a check analyses it.
    func leakReport() -> LeakReport {
        let info = snapshot.info
        return LeakReport(
            analysis: LeakAnalysis.analyze(snapshot.leakedGraph()),
            program: LeakReport.Program(path: info.programPath, arguments: info.arguments, exitStatus: 0)
        ) { snapshot.reportFrames(ofStack: $0) }
    }

    /// `/leaks`: the root cycles with the same graphs and text as the HTML leak report (it is that
    /// report, with the site's navigation above it), and a link to each leaked object's page.
    func leaksHTML() -> String {
        if let made = leaksPage.withLock({ $0 }) { return made }
        let report = leakReport()
        let navigation =
            "<nav style=\"font:14px sans-serif;padding:6px 16px;background:#fff;border-bottom:1px solid #ddd\">"
            + "<a href=\"/types\">Types</a> · <a href=\"/dominators\">Dominators</a> · <strong>Leaks</strong>"
            + (old != nil ? " · <a href=\"/comparison\">Comparison</a>" : "") + "</nav>"
        var objects =
            "<section style=\"font:14px sans-serif;padding:0 16px\"><h2>Leaked objects</h2><ul id=\"leaked-objects\">"
        for leak in report.leaks {
            guard let id = UInt64(leak.address.dropFirst(2), radix: 16).flatMap({ snapshot.object(at: $0) }) else {
                continue
            }
            objects += "<li>\(objectLink(id))</li>"
        }
        objects += "</ul></section>"
        let html: String
        do {
            let graphs = try SVGRenderer.render(DOTRenderer.graphs(for: report))
            html = HTMLReport.render(report, graphs: graphs)
        } catch {
            html =
                "<!DOCTYPE html><html><body><p>The graphs could not be drawn: \(escape(error.message))</p></body></html>"
        }
        var page = html
        if let body = page.range(of: "<body"), let close = page[body.upperBound...].firstIndex(of: ">") {
            page.insert(contentsOf: navigation, at: page.index(after: close))
        }
        if let end = page.range(of: "</body>", options: .backwards) {
            page.insert(contentsOf: report.leaks.isEmpty ? "" : objects, at: end.lowerBound)
        }
        leaksPage.withLock { $0 = page }
        return page
    }

    /// `/dominators`, `/dominators/N`: one node of the dominator tree — the way down from the super-root,
    /// then what it immediately dominates, most retained bytes first, each expandable in turn.
    func dominatorsPage(node: Int) -> String {
        let superRoot = analysis.superRoot
        func label(_ node: Int) -> String {
            if node == superRoot { return "all roots" }
            if let group = analysis.leakGroup(ofNode: node) { return "root cycle #\(group + 1) (leaked)" }
            return objectLink(node)
        }
        func link(_ node: Int) -> String {
            node == superRoot
                ? "/dominators"
                : analysis.leakGroup(ofNode: node).map { "/dominators/group-\($0)" } ?? "/dominators/\(node)"
        }
        var path: [Int] = []
        var current = node
        while current != superRoot, analysis.tree.isReached(current) {
            path.append(current)
            current = Int(analysis.tree.immediateDominators[current])
        }
        path.append(superRoot)
        let crumbs = path.reversed().map {
            $0 == node
                ? label($0)
                : "<a href=\"\(link($0))\">\($0 == superRoot ? "all roots" : label($0).replacingOccurrences(of: "<a href", with: "<span data-href").replacingOccurrences(of: "</a>", with: "</span>"))</a>"
        }
        var body = "<h1>Dominator tree</h1><p class=\"crumbs\">\(crumbs.joined(separator: " › "))</p>"
        let total = Double(max(analysis.totalBytes, 1))
        if node != superRoot {
            body +=
                "<p>Retains \(bytes(analysis.retainedSizes[node])) (\(SnapshotText.percent(Double(analysis.retainedSizes[node]) / total))).</p>"
        } else {
            body +=
                "<p>Every object no other object dominates: held by roots, or by a leaked root cycle. Freeing one frees what it retains.</p>"
        }
        let children = Array(analysis.children(of: node))
        body +=
            "<table id=\"dominated\"><thead><tr><th>Dominates</th><th class=\"n\">Retained</th><th class=\"n\">Share</th>"
            + "<th class=\"n\">Dominated</th><th></th></tr></thead><tbody>"
        for child in children.prefix(500).map(Int.init) {
            let count = analysis.children(of: child).count
            let expand = count > 0 ? "<a href=\"\(link(child))\">expand ▸</a>" : ""
            body +=
                "<tr><td>\(label(child))\(child < superRoot ? " " + badges(child) : "")</td>"
                + "<td class=\"n\">\(bytes(analysis.retainedSizes[child]))</td>"
                + "<td class=\"n\">\(SnapshotText.percent(Double(analysis.retainedSizes[child]) / total))</td>"
                + "<td class=\"n\">\(count > 0 ? number(count) : "")</td><td>\(expand)</td></tr>"
        }
        body += "</tbody></table>"
        if children.count > 500 { body += "<p>… \(number(children.count - 500)) more.</p>" }
        return page(title: "Dominator tree", body: body)
    }

    /// `/comparison?by=type|site`: what changed since the older snapshot, most growth first.
    func comparisonPage(_ request: WebRequest) -> String {
        guard let old else {
            return page(
                title: "Comparison",
                body:
                    "<h1>Comparison</h1><p>Start <code>leakgraph serve NEW --compare OLD</code> to compare two snapshots.</p>"
            )
        }
        let grouping: HeapSnapshot.Grouping = request.query["by"] == "site" ? .site : .type
        let comparison = SnapshotComparison(
            old: old.snapshot, new: snapshot, oldKeys: old.snapshot.groupNames(by: grouping),
            newKeys: snapshot.groupNames(by: grouping))
        let showAll = request.flag("all")
        let rows = showAll ? comparison.rows : comparison.rows.filter { $0.change != .unchanged }
        let oldTime = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: old.snapshot.info.time))
        var body = """
            <h1>Comparison</h1>
            <p>Since \(escape(oldTime)): objects \(number(old.snapshot.objects.count)) → \(number(snapshot.objects.count)) \
            (\(number(comparison.keptObjects)) in both, \(number(comparison.addedObjects)) new, \(number(comparison.removedObjects)) gone); \
            bytes \(bytes(old.analysis.totalBytes)) → \(bytes(analysis.totalBytes)).</p>
            <form class="filter" method="get" action="/comparison"><select name="by" onchange="this.form.submit()" aria-label="group by">\
            <option value="type"\(grouping == .type ? " selected" : "")>by type</option>\
            <option value="site"\(grouping == .site ? " selected" : "")>by creation site</option></select>
            <label><input type="checkbox" name="all" value="1"\(showAll ? " checked" : "") onchange="this.form.submit()"> unchanged too</label>
            <button type="submit">Show</button></form>
            <table id="comparison"><thead><tr><th>\(grouping == .site ? "Creation site" : "Type")</th><th>Change</th>\
            <th class="n">Objects</th><th class="n">Bytes</th><th class="n">Δ bytes</th><th class="n">New objects</th></tr></thead><tbody>

            """
        let typeIndex = Dictionary(
            snapshot.types.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        for row in rows.prefix(2000) {
            let name =
                grouping == .type
                ? (typeIndex[row.key].map { "<a href=\"/type/\($0)\">\(escape(row.key))</a>" } ?? escape(row.key))
                : escape(row.key)
            body +=
                "<tr class=\"\(row.change.rawValue)\"><td>\(name)</td><td>\(row.change.rawValue)</td>"
                + "<td class=\"n\">\(number(row.oldCount)) → \(number(row.newCount))</td>"
                + "<td class=\"n\">\(bytes(row.oldBytes)) → \(bytes(row.newBytes))</td>"
                + "<td class=\"n\">\(SnapshotText.signedBytes(row.byteDelta))</td><td class=\"n\">\(number(row.added))</td></tr>\n"
        }
        body += "</tbody></table>"
        return page(title: "Comparison", body: body)
    }
}
