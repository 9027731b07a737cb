import LeakGraphModel

extension StrongReferenceGraph {
    /// The graph with `extra` references (source, target) added after each source's own.
    ///
    /// - Complexity: O(*n* + *e* + *k* log *k*) for *n* nodes, *e* references and *k* added.
    func adding(_ extra: [(from: Int, to: Int)]) -> StrongReferenceGraph {
        guard !extra.isEmpty else { return self }
        let sorted = extra.sorted { $0.from < $1.from }
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(nodeCount + 1)
        var targets: [UInt32] = []
        targets.reserveCapacity(self.targets.count + extra.count)
        var next = 0
        for source in 0..<nodeCount {
            targets += self.targets[Int(self.offsets[source])..<Int(self.offsets[source + 1])]
            while next < sorted.count, sorted[next].from == source {
                targets.append(UInt32(sorted[next].to))
                next += 1
            }
            offsets.append(UInt32(targets.count))
        }
        return StrongReferenceGraph(retainCounts: retainCounts, offsets: offsets, targets: targets)
    }
}
