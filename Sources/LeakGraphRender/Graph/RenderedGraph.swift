/// A graph and its SVG.
public struct RenderedGraph: Sendable, Hashable {
    /// The graph.
    public var graph: DOTGraph
    /// The SVG document Graphviz made of it.
    public var svg: String

    /// Pairs a graph with its SVG.
    public init(graph: DOTGraph, svg: String) {
        self.graph = graph
        self.svg = svg
    }
}
