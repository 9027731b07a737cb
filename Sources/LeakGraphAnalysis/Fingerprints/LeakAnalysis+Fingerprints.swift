import LeakGraphModel

extension LeakAnalysis {
    /// The fingerprint of every root cycle (see ``CycleFingerprint``): `result[i]` for ``rootCycles``[i].
    /// An orphan's is ``CycleFingerprint/orphanFingerprint(typeName:)``.
    ///
    /// - Complexity: O(*n* + *e*) plus sorting each cycle's distinct edge lines.
    public func fingerprints() -> [String] {
        let cycleEdges = CycleEdges(analysis: self)
        return zip(rootCycles, cycleEdges.edges).map { cycle, edges in
            if cycle.isOrphan, let member = cycle.members.first {
                return CycleFingerprint.orphanFingerprint(typeName: graph.nodes[member].typeName)
            }
            return CycleFingerprint.fingerprint(
                of: edges.lazy.map { index in
                    let reference = graph.references[index]
                    return CycleFingerprint.Edge(
                        sourceType: graph.nodes[reference.from].typeName, path: reference.path,
                        targetType: graph.nodes[reference.to].typeName
                    )
                }
            )
        }
    }
}
