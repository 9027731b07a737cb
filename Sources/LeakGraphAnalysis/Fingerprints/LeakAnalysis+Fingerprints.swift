import LeakGraphModel

extension LeakAnalysis {
    /// The fingerprint of every root cycle (see ``CycleFingerprint``): `result[i]` for ``rootCycles``[i].
    ///
    /// - Parameter graph: The graph this analysis was computed from.
    /// - Precondition: The analysis was computed from `graph`.
    /// - Complexity: O(*n* + *e*) plus sorting each cycle's distinct edge lines.
    public func fingerprints(in graph: ObjectGraph) -> [String] {
        precondition(nodeCount == graph.nodes.count, "the analysis was computed from another graph")
        let cycleEdges = CycleEdges(graph: graph, analysis: self)
        return cycleEdges.edges.map { edges in
            CycleFingerprint.fingerprint(
                of: edges.lazy.map { index in
                    let reference = graph.references[index]
                    return CycleFingerprint.Edge(
                        sourceType: graph.nodes[reference.from].typeName, label: reference.label,
                        targetType: graph.nodes[reference.to].typeName
                    )
                }
            )
        }
    }
}
