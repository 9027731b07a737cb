import LeakGraphModel

extension StrongReferenceGraph {
    /// The graph with `extra` references (source, target) added after each source's own.
    ///
    /// - Complexity: O(*n* + *e* + *k* log *k*) for *n* nodes, *e* references and *k* added.
    func adding(_ extra: [(from: Int, to: Int)]) -> StrongReferenceGraph {
        guard !extra.isEmpty else { return self }
        let sorted = extra.sorted { $0.from < $1.from }
        var offsets = [UInt32](repeating: 0, count: nodeCount + 1)
        var targets = [UInt32](repeating: 0, count: self.targets.count + extra.count)
        var count = 0
        // Copied through buffers: a slice of the old targets per source would retain their storage.
        self.offsets.withUnsafeBufferPointer { oldOffsets in
            self.targets.withUnsafeBufferPointer { oldTargets in
                offsets.withUnsafeMutableBufferPointer { offsets in
                    targets.withUnsafeMutableBufferPointer { targets in
                        var next = 0
                        for source in 0..<nodeCount {
                            for position in Int(oldOffsets[source])..<Int(oldOffsets[source + 1]) {
                                targets[count] = oldTargets[position]
                                count += 1
                            }
                            while next < sorted.count, sorted[next].from == source {
                                targets[count] = UInt32(sorted[next].to)
                                count += 1
                                next += 1
                            }
                            offsets[source + 1] = UInt32(count)
                        }
                    }
                }
            }
        }
        // References added from a node the graph does not have are left out, as before.
        targets.removeLast(targets.count - count)
        return StrongReferenceGraph(retainCounts: retainCounts, offsets: offsets, targets: targets)
    }
}
