import LeakGraphAnalysis
import LeakGraphModel

extension SnapshotSite {
    /// `/types`: every type (or creation site) with count, shallow and retained bytes and leaked objects;
    /// a filter box, the switches "leaks only" and "my code only", sortable columns.
    func typesPage(_ request: WebRequest) -> String {
        let bySite = request.query["by"] == "site"
        let filter = request.query["q"] ?? ""
        let leaksOnly = request.flag("leaks")
        let mineOnly = request.flag("mine")
        let sort = request.query["sort"] ?? "retained"
        let totals =
            bySite
            ? analysis.totals(groups: sites.ofObject, groupCount: sites.names.count, in: snapshot) : analysis.types
        let label = { (group: Int) in bySite ? self.sites.names[group] : self.snapshot.types[group].name }
        var rows = totals.filter { row in
            guard row.count > 0 else { return false }
            if leaksOnly, row.leakedCount == 0 { return false }
            if mineOnly, !(bySite ? siteIsProgram[row.group] : snapshot.types[row.group].isProgram) { return false }
            return filter.isEmpty || label(row.group).localizedCaseInsensitiveContains(filter)
        }
        switch sort {
        case "count": rows.sort { ($0.count, $1.group) > ($1.count, $0.group) }
        case "shallow": rows.sort { ($0.shallowBytes, $1.group) > ($1.shallowBytes, $0.group) }
        case "leaked":
            rows.sort { ($0.leakedCount, $0.retainedBytes, $1.group) > ($1.leakedCount, $1.retainedBytes, $0.group) }
        case "name": rows.sort { (label($0.group), $0.group) < (label($1.group), $1.group) }
        default:
            rows.sort { ($0.retainedBytes, $0.shallowBytes, $1.group) > ($1.retainedBytes, $1.shallowBytes, $0.group) }
        }
        // Links keep the other settings.
        func query(_ changes: [String: String?]) -> String {
            var parameters: [(String, String)] = []
            let current: [String: String?] = [
                "q": filter.isEmpty ? nil : filter, "leaks": leaksOnly ? "1" : nil, "mine": mineOnly ? "1" : nil,
                "by": bySite ? "site" : nil, "sort": sort == "retained" ? nil : sort,
            ]
            for key in ["q", "leaks", "mine", "by", "sort"] {
                let value = changes.keys.contains(key) ? changes[key]! : current[key]!
                if let value { parameters.append((key, value)) }
            }
            return parameters.isEmpty
                ? "/types" : "/types?" + parameters.map { "\($0.0)=\(WebRequest.encode($0.1))" }.joined(separator: "&")
        }
        func header(_ title: String, _ key: String, numeric: Bool = true) -> String {
            let marker = sort == key ? " ▾" : ""
            return
                "<th\(numeric ? " class=\"n\"" : "")><a href=\"\(escape(query(["sort": key == "retained" ? nil : key])))\">\(title)\(marker)</a></th>"
        }
        let what = bySite ? "creation site" : "type"
        var body = """
            <h1>\(bySite ? "Creation sites" : "Types")</h1>
            <form class="filter" method="get" action="/types">
            <input type="search" name="q" value="\(escape(filter))" placeholder="filter by \(what)" aria-label="filter">
            <label><input type="checkbox" name="leaks" value="1"\(leaksOnly ? " checked" : "") onchange="this.form.submit()"> leaks only</label>
            <label><input type="checkbox" name="mine" value="1"\(mineOnly ? " checked" : "") onchange="this.form.submit()"> my code only</label>
            <select name="by" onchange="this.form.submit()" aria-label="group by"><option value="type"\(bySite ? "" : " selected")>by type</option>\
            <option value="site"\(bySite ? " selected" : "")>by creation site</option></select>
            \(sort == "retained" ? "" : "<input type=\"hidden\" name=\"sort\" value=\"\(escape(sort))\">")
            <button type="submit">Filter</button></form>
            <p id="matching">\(number(rows.count)) of \(number(totals.filter { $0.count > 0 }.count)) \(what)s</p>
            <table id="types"><thead><tr>\(header(bySite ? "Creation site" : "Type", "name", numeric: false))\(header("Objects", "count"))\
            \(header("Shallow", "shallow"))\(header("Retained", "retained"))\(header("Leaked", "leaked"))</tr></thead><tbody>

            """
        for row in rows.prefix(2000) {
            let name = bySite ? sites.names[row.group] : names[row.group]
            let full = label(row.group)
            body +=
                "<tr><td><a href=\"/\(bySite ? "site" : "type")/\(row.group)\" title=\"\(escape(full))\">\(escape(name))</a></td>"
                + "<td class=\"n\">\(number(row.count))</td><td class=\"n\">\(bytes(row.shallowBytes))</td>"
                + "<td class=\"n\">\(bytes(row.retainedBytes))</td><td class=\"n\">\(row.leakedCount > 0 ? number(row.leakedCount) : "")</td></tr>\n"
        }
        body += "</tbody></table>"
        if rows.count > 2000 { body += "<p>… \(number(rows.count - 2000)) more: narrow the filter.</p>" }
        body +=
            "<p class=\"address\">Retained: what freeing the objects would free (their dominator tree); an object nested "
            + "in another of its \(what) counts once.</p>"
        return page(title: bySite ? "Creation sites" : "Types", body: body)
    }

    /// `/type/N`, `/site/N`: the objects of one type or creation site, most retained bytes first, 100 a page.
    func objectsPage(group: Int, byType: Bool, request: WebRequest) -> String {
        let groups = byType ? snapshot.objects.type : sites.ofObject
        var objects = (0..<snapshot.objects.count).filter { Int(groups[$0]) == group }
        objects.sort { (analysis.retainedSizes[$0], $1) > (analysis.retainedSizes[$1], $0) }
        let pageSize = 100
        let pageCount = max((objects.count + pageSize - 1) / pageSize, 1)
        let pageIndex = min(max(request.integer("page", 1), 1), pageCount)
        let title = byType ? snapshot.types[group].name : sites.names[group]
        var body = "<h1>\(escape(title))</h1>"
        if byType {
            let type = snapshot.types[group]
            var facts = ["kind \(type.kind.rawValue)"]
            if let module = type.module { facts.append("module \(escape(module))") }
            if !type.superclasses.isEmpty {
                facts.append("superclasses " + type.superclasses.map(escape).joined(separator: " → "))
            }
            body += "<p>\(facts.joined(separator: " · "))</p>"
        }
        body +=
            "<p>\(number(objects.count)) objects, most retained bytes first (page \(pageIndex) of \(pageCount)).</p>"
        body +=
            "<table id=\"objects\"><thead><tr><th>Object</th><th class=\"n\">Size</th><th class=\"n\">Retained</th>"
            + "<th class=\"n\">Distance</th><th>\(byType ? "Created at" : "Type")</th><th></th></tr></thead><tbody>\n"
        for object in objects.dropFirst((pageIndex - 1) * pageSize).prefix(pageSize) {
            let distance = analysis.distances[object]
            let second =
                byType ? escape(sites.names[Int(sites.ofObject[object])]) : escape(snapshot.type(of: object).name)
            body +=
                "<tr><td>\(objectLink(object))</td><td class=\"n\">\(bytes(snapshot.objects.size[object]))</td>"
                + "<td class=\"n\">\(bytes(analysis.retainedSizes[object]))</td><td class=\"n\">\(distance < 0 ? "–" : String(distance))</td>"
                + "<td>\(second)</td><td>\(badges(object))</td></tr>\n"
        }
        body += "</tbody></table>"
        let base = "/\(byType ? "type" : "site")/\(group)"
        if pageCount > 1 {
            var links: [String] = []
            if pageIndex > 1 { links.append("<a href=\"\(base)?page=\(pageIndex - 1)\">← previous</a>") }
            if pageIndex < pageCount { links.append("<a href=\"\(base)?page=\(pageIndex + 1)\">next →</a>") }
            body += "<p>\(links.joined(separator: " · "))</p>"
        }
        return page(title: title, body: body)
    }
}
