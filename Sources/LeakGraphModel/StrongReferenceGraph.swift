/// The strong references between the live objects of a heap walk and their retain counts, and nothing
/// else: no addresses, type names or paths. It is all that reachability and the proof need, in about
/// 5 bytes per object and 4 per strong reference, so a check can find the leaked objects of a large
/// heap before it builds ``ObjectNode``s and ``Reference``s for those alone.
///
/// Nodes are `0 ..< nodeCount`, numbered as the walk numbers them. Node `n`'s strong references lead
/// to `targets[offsets[n] ..< offsets[n + 1]]`, one entry per reference (two strong references from
/// `a` to `b` appear twice), in the order the walk found them. Weak, unowned and unmanaged references
/// are left out: they never keep an object alive.
public struct StrongReferenceGraph: Sendable, Equatable {
    /// Each node's strong retain count, saturated at `UInt32.max` (such a count is never explained by
    /// the graph's references, so its node counts as externally held); a byte per node
    /// (``CompactCounts``).
    public let retainCounts: CompactCounts
    /// `offsets[n] ..< offsets[n + 1]` is node `n`'s range in ``targets``; `nodeCount + 1` entries.
    public let offsets: [UInt32]
    /// The targets of every node's strong references, node after node.
    public let targets: [UInt32]

    /// The number of nodes.
    public var nodeCount: Int { retainCounts.count }

    /// Creates a graph; `offsets` must have `retainCounts.count + 1` non-decreasing entries starting at
    /// 0 and ending at `targets.count`, and every target must be a node.
    public init(retainCounts: [UInt32], offsets: [UInt32], targets: [UInt32]) {
        self.init(retainCounts: CompactCounts(retainCounts), offsets: offsets, targets: targets)
    }

    /// Creates a graph of retain counts already compact (a heap walk's).
    public init(retainCounts: CompactCounts, offsets: [UInt32], targets: [UInt32]) {
        precondition(
            offsets.count == retainCounts.count + 1 && offsets.first == 0 && Int(offsets.last!) == targets.count)
        self.retainCounts = retainCounts
        self.offsets = offsets
        self.targets = targets
    }

    /// The strong-reference graph of an ``ObjectGraph``'s references between valid node indices, each
    /// node's targets in reference order; retain counts below 0 count as 0.
    ///
    /// - Complexity: O(*n* + *e*) for *n* nodes and *e* references.
    public init(_ graph: ObjectGraph) {
        let nodeCount = graph.nodes.count
        let valid = 0..<nodeCount
        var counts = [UInt32](repeating: 0, count: nodeCount + 1)
        for reference in graph.references
        where reference.ownership == .strong && valid.contains(reference.from) && valid.contains(reference.to) {
            counts[reference.from + 1] += 1
        }
        for node in 0..<nodeCount {
            counts[node + 1] += counts[node]
        }
        // Filled backwards from each node's end, so no second array of cursors is needed: `counts[n + 1]`
        // walks down to `counts[n]`.
        var targets = [UInt32](repeating: 0, count: Int(counts[nodeCount]))
        for reference in graph.references.reversed()
        where reference.ownership == .strong && valid.contains(reference.from) && valid.contains(reference.to) {
            counts[reference.from + 1] -= 1
            targets[Int(counts[reference.from + 1])] = UInt32(reference.to)
        }
        // Each `counts[n + 1]` now holds node n's start: shift by one to get the offsets.
        for node in 0..<nodeCount {
            counts[node] = counts[node + 1]
        }
        counts[nodeCount] = UInt32(targets.count)
        self.init(
            retainCounts: graph.nodes.map { UInt32(clamping: max($0.retainCount, 0)) }, offsets: counts,
            targets: targets)
    }
}
