import LeakGraphReport

extension GraphBuilder {
    /// The graph as DOT text.
    ///
    /// - Parameters:
    ///   - name: The graph's name; its `id` (the prefix of the SVG element ids) is `graph-<name>`, apart from
    ///     the ids an HTML page gives its sections.
    ///   - label: The title drawn above the graph, HTML-like (without the enclosing `<` `>`).
    ///   - tooltip: The graph's tooltip.
    ///   - engine: The layout engine the text is meant for (adds `sfdp`'s overlap removal).
    ///   - edges: The edges from ``edges(suspects:)``.
    ///   - gridColumns: With `dot`, lay the clusters (and any note) out in rows of this many, in order,
    ///     instead of all side by side: each row hangs below the previous one from an invisible point
    ///     that every node of the previous row points to and that points to every node of the row.
    func dotText(
        name: String, label: String, tooltip: String, engine: LayoutEngine, edges: [Edge], gridColumns: Int? = nil
    ) -> String {
        var lines: [String] = []
        lines.append("digraph \(DOTText.quoted(name)) {")
        var graph: [(key: String, value: String)] = [
            ("id", DOTText.quoted("graph-" + name)), ("label", "<\(label)>"),
            ("tooltip", DOTText.quotedTooltip(tooltip)),
        ]
        graph += GraphStyle.graphAttributes
        if engine != .dot {
            graph += GraphStyle.sfdpAttributes
        }
        lines.append("  graph" + DOTText.attributeList(graph))
        lines.append("  node" + DOTText.attributeList(GraphStyle.nodeDefaults))
        lines.append("  edge" + DOTText.attributeList(GraphStyle.edgeDefaults))

        for node in nodes.indices where nodes[node].cluster == nil {
            lines.append("  " + nodeStatement(node))
        }
        for (number, cluster) in clusters.enumerated() {
            lines.append("  subgraph \(DOTText.quoted("cluster_" + cluster.id)) {")
            let attributes: [(key: String, value: String)] = [
                ("label", "<\(cluster.label)>"), ("tooltip", DOTText.quotedTooltip(cluster.tooltip)),
                ("style", "\"rounded,dashed\""), ("color", "\"#b0b0b0\""), ("margin", "12"),
            ]
            lines.append("    graph" + DOTText.attributeList(attributes))
            for node in nodes.indices where nodes[node].cluster == number {
                lines.append("    " + nodeStatement(node))
            }
            lines.append("  }")
        }
        var selfEdges: [Int: Int] = [:]
        for edge in edges where edge.from == edge.to {
            selfEdges[edge.from, default: 0] += 1
        }
        for edge in edges {
            var attributes: [(key: String, value: String)] = [
                ("label", DOTText.quoted(edge.label)), ("tooltip", DOTText.quotedTooltip(edge.tooltip)),
            ]
            attributes += GraphStyle.edgeAttributes(edge.kind)
            if edge.kind == .suspect {
                if edge.from == edge.to {
                    if selfEdges[edge.from, default: 0] > 1 {
                        // A second loop on one node: draw it on the left, where its label does not collide.
                        attributes += [("tailport", "\"w\""), ("headport", "\"w\"")]
                    }
                } else {
                    // Written from its target to its source and drawn backwards: the rest of a ring then
                    // hangs from the suspect's target, and the suspect is the edge that runs back up and
                    // closes it — ranked like any other edge, so dot routes it (and places its label)
                    // beside the objects it joins. Left unranked (`constraint=false`), dot put its label
                    // wherever the rank had room and sent the edge through it, across other objects.
                    let from = DOTText.quoted(nodes[edge.from].id)
                    let to = DOTText.quoted(nodes[edge.to].id)
                    attributes.append(("dir", "back"))
                    lines.append("  \(to) -> \(from)" + DOTText.attributeList(attributes))
                    continue
                }
            }
            let from = DOTText.quoted(nodes[edge.from].id)
            let to = DOTText.quoted(nodes[edge.to].id)
            lines.append("  \(from) -> \(to)" + DOTText.attributeList(attributes))
        }
        if engine == .dot, let gridColumns, gridColumns > 0 {
            lines += gridLines(columns: gridColumns)
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The invisible points and edges that put the clusters in rows (see ``dotText(name:label:tooltip:engine:edges:gridColumns:)``).
    private func gridLines(columns: Int) -> [String] {
        // The items in order: each cluster's nodes, then each note outside clusters.
        var items: [[Int]] = clusters.indices.map { cluster in nodes.indices.filter { nodes[$0].cluster == cluster } }
        items += nodes.indices.filter { nodes[$0].cluster == nil }.map { [$0] }
        items.removeAll { $0.isEmpty }
        guard items.count > columns else { return [] }
        var lines: [String] = []
        let invisible = "[style=\"invis\", arrowhead=\"none\"]"
        for row in 1...(items.count - 1) / columns {
            let anchor = DOTText.quoted("row\(row)")
            lines.append("  \(anchor) [shape=\"point\", style=\"invis\", width=0, height=0, label=\"\"]")
            for item in items[(row - 1) * columns..<row * columns] {
                for node in item {
                    lines.append("  \(DOTText.quoted(nodes[node].id)) -> \(anchor) \(invisible)")
                }
            }
            // Every node of the next row hangs from the anchor, pulled up to it (weight 10 against the
            // weight 1 of the edges to the next anchor), so the row's clusters start on one line.
            let hanging = "[style=\"invis\", arrowhead=\"none\", weight=10]"
            for item in items[(row * columns)..<min(items.count, (row + 1) * columns)] {
                for node in item {
                    lines.append("  \(anchor) -> \(DOTText.quoted(nodes[node].id)) \(hanging)")
                }
            }
        }
        return lines
    }

    private func nodeStatement(_ node: Int) -> String {
        let value = nodes[node]
        var attributes: [(key: String, value: String)] = [
            ("label", "<\(value.label)>"), ("tooltip", DOTText.quotedTooltip(value.tooltip)),
        ]
        attributes += GraphStyle.nodeAttributes(value.role)
        return DOTText.quoted(value.id) + DOTText.attributeList(attributes)
    }
}
