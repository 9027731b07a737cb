/// One graph in DOT text, ready to lay out: the overview of a report or one root cycle.
public struct DOTGraph: Sendable, Hashable {
    /// What a graph shows.
    public enum Subject: Sendable, Hashable {
        /// Every root cycle of the report (and leaked objects outside them).
        case overview
        /// The root cycle at this position in `LeakReport.cycles` (shown as `#position+1`).
        case cycle(Int)
    }

    /// What the graph shows.
    public var subject: Subject
    /// A name usable in file names: `overview`, `cycle-1`, `cycle-2`, …; the SVG element ids start with
    /// `graph-<name>`.
    public var name: String
    /// A one-line title: `Root cycle #1: 10 objects, 320 bytes`.
    public var title: String
    /// The DOT source (`digraph … { … }`), ending with a newline.
    public var text: String
    /// The layout engine chosen for the graph's size.
    public var engine: LayoutEngine
    /// The number of nodes drawn.
    public var nodeCount: Int
    /// The number of edges drawn.
    public var edgeCount: Int
    /// Whether objects were collapsed into groups (by type and strongly connected component).
    public var isCollapsed: Bool

    /// Creates a graph description.
    public init(
        subject: Subject, name: String, title: String, text: String, engine: LayoutEngine, nodeCount: Int,
        edgeCount: Int, isCollapsed: Bool
    ) {
        self.subject = subject
        self.name = name
        self.title = title
        self.text = text
        self.engine = engine
        self.nodeCount = nodeCount
        self.edgeCount = edgeCount
        self.isCollapsed = isCollapsed
    }
}
