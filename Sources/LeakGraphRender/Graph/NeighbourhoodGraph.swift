/// A small graph around one object of a heap snapshot — its retainers and references up to a few hops —
/// drawn with the leak reports' styles (``GraphStyle``): leaked objects of a root cycle light red with
/// a red border, other leaked objects grey, live objects white; strong references inside a cycle red,
/// other strong ones dark grey, weak ones dashed. Every node is a link (`URL`), so the SVG's nodes open
/// their objects.
public struct NeighbourhoodGraph: Sendable {
    /// How a node is drawn.
    public enum Role: Sendable, Hashable {
        /// The object the graph is about.
        case focus
        /// A live object.
        case live
        /// A leaked object in a root cycle.
        case cycleMember
        /// A leaked object a root cycle holds.
        case leakedHeld
        /// A note: how many more neighbours were left out.
        case note
    }

    /// How an edge is drawn.
    public enum EdgeKind: Sendable, Hashable {
        /// A strong reference between two members of one root cycle.
        case cycle
        /// Any other strong reference.
        case strong
        /// A weak, unowned or unmanaged reference.
        case notStrong
    }

    /// One node.
    public struct Node: Sendable, Hashable {
        /// The first line (a type name).
        public var title: String
        /// The second line (address, sizes), smaller and grey.
        public var detail: String
        /// The tooltip.
        public var tooltip: String
        /// The page it links to.
        public var url: String
        /// How it is drawn.
        public var role: Role

        /// Creates a node.
        public init(title: String, detail: String, tooltip: String, url: String, role: Role) {
            self.title = title
            self.detail = detail
            self.tooltip = tooltip
            self.url = url
            self.role = role
        }
    }

    /// One edge between two nodes (indices into ``nodes``).
    public struct Edge: Sendable, Hashable {
        public var from: Int
        public var to: Int
        public var label: String
        public var kind: EdgeKind

        /// Creates an edge.
        public init(from: Int, to: Int, label: String, kind: EdgeKind) {
            self.from = from
            self.to = to
            self.label = label
            self.kind = kind
        }
    }

    /// The nodes, the focus among them.
    public var nodes: [Node]
    /// The edges.
    public var edges: [Edge]

    /// Creates a graph.
    public init(nodes: [Node], edges: [Edge]) {
        self.nodes = nodes
        self.edges = edges
    }

    /// The DOT text, laid out with `dot` up to the report renderer's limits (60 nodes, 90 edges) and
    /// `sfdp` beyond.
    public func dot(title: String) -> DOTGraph {
        let limits = DOTRenderer.Options()
        let engine: LayoutEngine =
            nodes.count <= limits.dotNodeLimit && edges.count <= limits.dotEdgeLimit ? .dot : .sfdp
        var lines = ["digraph neighbourhood {"]
        var graph = GraphStyle.graphAttributes + [("rankdir", "\"LR\"")]
        if engine == .sfdp { graph += GraphStyle.sfdpAttributes }
        lines.append("  graph" + DOTText.attributeList(graph) + ";")
        lines.append("  node" + DOTText.attributeList(GraphStyle.nodeDefaults) + ";")
        lines.append("  edge" + DOTText.attributeList(GraphStyle.edgeDefaults) + ";")
        for (index, node) in nodes.enumerated() {
            var attributes: [(key: String, value: String)]
            switch node.role {
            case .focus:
                attributes = [("fillcolor", "\"#dbe9ff\""), ("color", "\"#1a56b0\""), ("penwidth", "2.5")]
            case .live:
                attributes = [("fillcolor", "\"#ffffff\""), ("color", "\"#5f5f5f\""), ("penwidth", "1")]
            case .cycleMember:
                attributes = GraphStyle.nodeAttributes(.member)
            case .leakedHeld:
                attributes = GraphStyle.nodeAttributes(.held)
            case .note:
                attributes = GraphStyle.nodeAttributes(.note)
            }
            let detail =
                node.detail.isEmpty
                ? ""
                : "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"\(GraphStyle.detailColor)\">\(DOTText.htmlEscaped(node.detail))</FONT>"
            attributes.append(("label", "<" + DOTText.htmlEscaped(node.title) + detail + ">"))
            attributes.append(("tooltip", DOTText.quotedTooltip(node.tooltip)))
            if !node.url.isEmpty {
                attributes.append(("URL", DOTText.quoted(node.url)))
                attributes.append(("target", "\"_top\""))
            }
            lines.append("  n\(index)" + DOTText.attributeList(attributes) + ";")
        }
        for edge in edges {
            let style: GraphBuilder.EdgeKind =
                switch edge.kind {
                case .cycle: .cycle
                case .strong: .strong
                case .notStrong: .notStrong
                }
            let attributes =
                GraphStyle.edgeAttributes(style) + [
                    ("label", DOTText.quoted(edge.label)),
                    (
                        "tooltip",
                        DOTText.quotedTooltip("\(nodes[edge.from].title).\(edge.label) → \(nodes[edge.to].title)")
                    ),
                ]
            lines.append("  n\(edge.from) -> n\(edge.to)" + DOTText.attributeList(attributes) + ";")
        }
        lines.append("}")
        return DOTGraph(
            subject: .overview, name: "neighbourhood", title: title, text: lines.joined(separator: "\n") + "\n",
            engine: engine,
            nodeCount: nodes.count, edgeCount: edges.count, isCollapsed: false)
    }
}
