import LeakGraphModel

extension LeakAnalysis {
    /// The roots of a heap walk's strong-reference graph and what reachability decided, as
    /// ``analyze(_:)`` decides them: nodes with unexplained (positive, and not an orphan's) or impossible
    /// (negative) external references, and unreached nodes whose proof failed; `reached` is `false`
    /// for exactly the leaked nodes.
    ///
    /// - Complexity: O(*n* + *e*).
    package static func rootsAndReach(of graph: StrongReferenceGraph, orphans: [Int] = []) -> (
        roots: [Int], reached: [Bool]
    ) {
        let counts = graph.retainCounts
        var isOrphan = [Bool](repeating: false, count: orphans.isEmpty ? 0 : graph.nodeCount)
        for node in orphans { isOrphan[node] = true }
        let reachability = reachability(StrongAdjacency(graph), isOrphan: isOrphan) { Int(counts[$0]) }
        let roots = reachability.isRoot.indices.filter { reachability.isRoot[$0] }
        return (roots, reachability.reached)
    }
}
