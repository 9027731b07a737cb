/// A Graphviz layout engine, chosen per graph by its size.
///
/// `dot` draws layered, readable graphs but its cost grows fast, with the edges more than the nodes.
/// Measured on this project's machines (labelled edges, libgvc 2.42): a 100-object ring 0.04–0.14 s;
/// 60 nodes with 90 edges 0.2 s, with 120 edges 1.5 s; 100 nodes with 150 edges 2–7 s; 1,000 nodes
/// more than four minutes. `sfdp` (force-directed, multilevel) lays out 100 nodes with 150 edges in
/// 0.04–0.07 s and 1,000 nodes in about 0.2 s. ``DOTRenderer`` therefore uses `dot` for graphs of up to
/// ``DOTRenderer/Options/dotNodeLimit`` nodes (60) and ``DOTRenderer/Options/dotEdgeLimit`` edges (90),
/// `sfdp` beyond; components of more than 60 objects are collapsed first, so `sfdp` graphs stay at a few
/// hundred nodes at most.
public enum LayoutEngine: String, Sendable, Hashable, CaseIterable {
    /// Hierarchical layout: small graphs.
    case dot
    /// Multilevel force-directed layout: medium graphs.
    case sfdp
    /// Spring-model layout (not chosen automatically; available to callers).
    case neato
    /// Circular layout (not chosen automatically; available to callers).
    case circo
}
