import LeakGraphModel

/// The strong references inside each root cycle: both ends are members of the same cycle.
///
/// Suspects and fingerprints are both computed from these edges only; references to held objects, to live
/// objects and weak, unowned or unmanaged references are left out.
struct CycleEdges {
    /// Per root cycle id: the indices into ``ObjectGraph/references`` of its internal strong references, in
    /// reference order.
    var edges: [[Int]]

    /// Buckets the strong references of the analysed graph by the root cycle that contains both ends.
    ///
    /// - Complexity: O(*n* + *e*).
    init(analysis: LeakAnalysis) {
        let graph = analysis.graph
        let nodeCount = graph.nodes.count
        var memberOf = [Int](repeating: -1, count: nodeCount)
        for cycle in analysis.rootCycles {
            for member in cycle.members where member >= 0 && member < nodeCount {
                memberOf[member] = cycle.id
            }
        }
        var edges = [[Int]](repeating: [], count: analysis.rootCycles.count)
        for (index, reference) in graph.references.enumerated()
        where StrongAdjacency.isCounted(reference, nodeCount: nodeCount) {
            let cycle = memberOf[reference.from]
            if cycle >= 0, memberOf[reference.to] == cycle {
                edges[cycle].append(index)
            }
        }
        self.edges = edges
    }
}
