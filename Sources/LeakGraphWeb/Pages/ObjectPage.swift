import LeakGraphAnalysis
import LeakGraphGraphviz
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport

extension SnapshotSite {
    /// The most hops the neighbourhood graph may span.
    static let maximumHops = 4
    /// The most objects the neighbourhood graph draws.
    static let neighbourhoodNodeLimit = 40
    /// The most references of one object, each way, the neighbourhood graph follows.
    static let neighbourhoodFanout = 8
    /// The most references (out and in) the tables list.
    static let referenceRowLimit = 500

    /// `/object/N`: the memory inspector — type, superclasses, module, address, sizes, distance; the
    /// creation backtrace (the program's frames emphasised, library frames grey); why it is alive; its
    /// neighbourhood graph; references out and retainers in, each a link.
    func objectPage(_ object: Int, request: WebRequest) -> String {
        let type = snapshot.type(of: object)
        let typeIndex = Int(snapshot.objects.type[object])
        let retained = analysis.retainedSizes[object]
        let share = Double(retained) / Double(max(analysis.totalBytes, 1))
        var facts: [(String, String)] = [
            ("Type", "<a href=\"/type/\(typeIndex)\">\(escape(type.name))</a>"),
            ("Kind", escape(type.kind.rawValue)),
        ]
        if let module = type.module { facts.append(("Module", escape(module))) }
        if !type.superclasses.isEmpty {
            facts.append(("Superclasses", type.superclasses.map(escape).joined(separator: " → ")))
        }
        facts += [
            ("Address", "<span class=\"address\">\(snapshot.addressText(of: object))</span>"),
            ("Size", bytes(snapshot.objects.size[object])),
            ("Retained size", "\(bytes(retained)) (\(SnapshotText.percent(share)) of all)"),
            ("Retain count", number(Int(snapshot.objects.retainCount[object]))),
            (
                "Distance from a root",
                analysis.distances[object] < 0 ? "unreached" : number(Int(analysis.distances[object]))
            ),
        ]
        if let dominator = analysis.tree.immediateDominator(of: object) {
            let text =
                dominator < analysis.superRoot
                ? objectLink(dominator)
                : dominator == analysis.superRoot
                    ? "no single object (a root, or held by several)" : "its root cycle (leaked)"
            facts.append(("Dominated by", text + " · <a href=\"/dominators/\(object)\">in the dominator tree</a>"))
        }
        if let root = rootOf[object] {
            facts.append(
                (
                    "Root",
                    "held by \(escape(root.holder.text)) (\(number(root.unexplainedRetains)) unexplained retain\(root.unexplainedRetains == 1 ? "" : "s"))"
                ))
        }
        var body = "<h1>\(escape(names[typeIndex])) \(badges(object))</h1>\n<dl class=\"facts\">"
        for (name, value) in facts { body += "<dt>\(name)</dt><dd>\(value)</dd>" }
        body += "</dl>\n"
        body += backtraceSection(object)
        body += whySection(object)
        body += graphSection(object, request: request)
        body += referencesSection(object)
        return page(title: "\(names[typeIndex]) \(snapshot.addressText(of: object))", body: body)
    }

    private func backtraceSection(_ object: Int) -> String {
        let stack = snapshot.objects.stack[object]
        guard stack >= 0 else { return "<h2>Created at</h2><p>No creation stack was recorded.</p>\n" }
        let site = snapshot.creationSiteFrame(ofStack: Int(stack))
        var html = "<h2>Created at</h2><ol class=\"frames\" id=\"backtrace\">"
        for (position, frameIndex) in snapshot.stacks[Int(stack)].enumerated() {
            let frame = snapshot.frames[frameIndex]
            let place = frame.file.map { ReportNaming.place(file: $0, line: frame.line.flatMap { $0 > 0 ? $0 : nil }) }
            html += HTMLBacktrace.item(
                function: frame.function, file: frame.file, place: place, isSite: position == site,
                classes: [frame.category.rawValue])
        }
        return html + "</ol>\n"
    }

    private func whySection(_ object: Int) -> String {
        guard !snapshot.objects.flags[object].contains(.leaked) else {
            let group =
                groupOf[object].map { " (root cycle, <a href=\"/dominators/group-\($0)\">in the dominator tree</a>)" }
                ?? ""
            return
                "<h2>Why is it alive?</h2><p>It is leaked: no root reaches it\(group). <a href=\"/leaks\">See the leaks.</a></p>\n"
        }
        let indexes = indexes
        guard let chain = snapshot.retainerChain(to: object, strong: indexes.strong, reversed: indexes.reversed) else {
            return "<h2>Why is it alive?</h2><p>No root reaches it over strong references.</p>\n"
        }
        var html =
            "<h2>Why is it alive?</h2><p>The shortest chain of strong references from a root: held by "
            + "\(escape(chain.holder.text)).</p><ol id=\"chain\">"
        for link in chain.links {
            let id = UInt64(link.address.dropFirst(2), radix: 16).flatMap { snapshot.object(at: $0) }
            let target = id.map(objectLink) ?? escape(link.type)
            html += "<li>" + (link.label.map { "—<code>\(escape($0))</code>→ " } ?? "") + target + "</li>"
        }
        return html + "</ol>\n"
    }

    private func graphSection(_ object: Int, request: WebRequest) -> String {
        let hops = min(max(request.integer("hops", 2), 1), Self.maximumHops)
        var html =
            "<h2>Neighbourhood</h2><form method=\"get\" action=\"/object/\(object)\">Retainers and references up to "
            + "<select name=\"hops\" onchange=\"this.form.submit()\" aria-label=\"hops\">"
        for value in 1...Self.maximumHops { html += "<option\(value == hops ? " selected" : "")>\(value)</option>" }
        html += "</select> hops <button type=\"submit\">Draw</button></form>"
        let graph = neighbourhood(of: object, hops: hops)
        do {
            let svg = try SVGRenderer.render(graph.dot(title: "Neighbourhood of \(snapshot.addressText(of: object))"))
            html += "<div class=\"graph\" id=\"neighbourhood\">" + (HTMLText.inlineSVG(svg) ?? "") + "</div>\n"
        } catch {
            html += "<p>The graph could not be drawn: \(escape(error.message))</p>\n"
        }
        return html
    }

    /// The objects within `hops` references of `object`, both ways, at most ``neighbourhoodNodeLimit``;
    /// the references between them.
    func neighbourhood(of object: Int, hops: Int) -> NeighbourhoodGraph {
        var index: [Int: Int] = [object: 0]
        var order = [object]
        var notes: [NeighbourhoodGraph.Node] = []
        var noteEdges: [(from: Int, noteIndex: Int, outward: Bool)] = []
        var frontier = [object]
        let indexes = indexes
        for _ in 0..<hops {
            var next: [Int] = []
            for node in frontier {
                let outward = snapshot.references.range(of: node).map { Int(snapshot.references.targets[$0]) }
                let inward = indexes.retainers(of: node).map { Int($0.source) }
                for (neighbours, isOutward) in [(outward, true), (inward, false)] {
                    var added = 0
                    var skipped = 0
                    for neighbour in neighbours where index[neighbour] == nil {
                        if added < Self.neighbourhoodFanout && order.count < Self.neighbourhoodNodeLimit {
                            index[neighbour] = order.count
                            order.append(neighbour)
                            next.append(neighbour)
                            added += 1
                        } else {
                            skipped += 1
                        }
                    }
                    if skipped > 0 {
                        let what = isOutward ? "more reference" : "more retainer"
                        notes.append(
                            NeighbourhoodGraph.Node(
                                title: "… \(number(skipped)) \(what)\(skipped == 1 ? "" : "s")", detail: "",
                                tooltip: "open the object",
                                url: "/object/\(node)", role: .note))
                        noteEdges.append((node, notes.count - 1, isOutward))
                    }
                }
            }
            frontier = next
        }
        var nodes = order.map { node -> NeighbourhoodGraph.Node in
            let flags = snapshot.objects.flags[node]
            let role: NeighbourhoodGraph.Role =
                node == object
                ? .focus
                : flags.contains(.leaked) ? (groupOf[node] != nil ? .cycleMember : .leakedHeld) : .live
            let detail =
                "\(snapshot.addressText(of: node)) · \(bytes(snapshot.objects.size[node])), retains \(bytes(analysis.retainedSizes[node]))"
            return NeighbourhoodGraph.Node(
                title: names[Int(snapshot.objects.type[node])], detail: detail, tooltip: snapshot.type(of: node).name,
                url: "/object/\(node)", role: role)
        }
        var edges: [NeighbourhoodGraph.Edge] = []
        var perPair: [Int: Int] = [:]
        for node in order {
            for reference in snapshot.references.range(of: node) {
                guard let to = index[Int(snapshot.references.targets[reference])], let from = index[node] else {
                    continue
                }
                let pair = from * Self.neighbourhoodNodeLimit + to
                guard perPair[pair, default: 0] < 3 else { continue }
                perPair[pair, default: 0] += 1
                let ownership = snapshot.ownership(ofReference: reference)
                let target = order[to]
                let kind: NeighbourhoodGraph.EdgeKind =
                    ownership != .strong
                    ? .notStrong
                    : groupOf[node] != nil && groupOf[node] == groupOf[target] ? .cycle : .strong
                edges.append(
                    NeighbourhoodGraph.Edge(
                        from: from, to: to, label: snapshot.path(ofReference: reference).text, kind: kind))
            }
        }
        for (from, noteIndex, outward) in noteEdges {
            let note = nodes.count
            nodes.append(notes[noteIndex])
            let source = index[from]!
            edges.append(
                outward
                    ? NeighbourhoodGraph.Edge(from: source, to: note, label: "", kind: .notStrong)
                    : NeighbourhoodGraph.Edge(from: note, to: source, label: "", kind: .notStrong))
        }
        return NeighbourhoodGraph(nodes: nodes, edges: edges)
    }

    private func referencesSection(_ object: Int) -> String {
        let outward = Array(snapshot.references.range(of: object))
        var html =
            "<h2>References out (\(number(outward.count)))</h2><table id=\"references\"><thead><tr><th>Path</th>"
            + "<th>Ownership</th><th>Object</th></tr></thead><tbody>"
        for reference in outward.prefix(Self.referenceRowLimit) {
            let target = Int(snapshot.references.targets[reference])
            html +=
                "<tr><td><code>\(escape(snapshot.path(ofReference: reference).text))</code></td>"
                + "<td>\(snapshot.ownership(ofReference: reference).rawValue)</td><td>\(objectLink(target)) \(badges(target))</td></tr>"
        }
        html += "</tbody></table>"
        let inward = indexes.retainers(of: object)
        html +=
            "<h2>Retainers in (\(number(inward.count)))</h2><table id=\"retainers\"><thead><tr><th>Object</th><th>Path</th>"
            + "<th>Ownership</th></tr></thead><tbody>"
        for (source, reference) in inward.prefix(Self.referenceRowLimit) {
            html +=
                "<tr><td>\(objectLink(Int(source))) \(badges(Int(source)))</td>"
                + "<td><code>\(escape(snapshot.path(ofReference: Int(reference)).text))</code></td>"
                + "<td>\(snapshot.ownership(ofReference: Int(reference)).rawValue)</td></tr>"
        }
        if let root = rootOf[object] {
            html +=
                "<tr><td colspan=\"3\">and \(number(root.unexplainedRetains)) retain\(root.unexplainedRetains == 1 ? "" : "s") from "
                + "outside the heap: \(escape(root.holder.text))</td></tr>"
        }
        return html + "</tbody></table>\n"
    }
}
