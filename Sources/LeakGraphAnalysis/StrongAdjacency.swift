import LeakGraphModel

/// Strong references in compressed sparse row (CSR) form, with 32-bit offsets and node indices.
///
/// Node `n`'s neighbours are `targets[offsets[n] ..< offsets[n + 1]]`: one entry per strong reference, so
/// two strong references from `a` to `b` appear twice. Weak, unowned and unmanaged references are left out:
/// they never keep an object alive. References whose endpoints are not valid node indices are left out too.
///
/// The value is built once and read many times by the analysis; it never recurses.
package struct StrongAdjacency: Sendable, Equatable {
    /// The neighbours of one node, as `Int` node indices.
    package typealias Neighbors = LazyMapCollection<ArraySlice<UInt32>, Int>

    /// The number of nodes (valid indices are `0 ..< nodeCount`).
    package let nodeCount: Int
    /// `offsets[n] ..< offsets[n + 1]` is the range of node `n`'s neighbours in `targets`.
    private let offsets: [UInt32]
    /// The neighbours of every node, node after node.
    private let targets: [UInt32]

    /// The number of strong edges (duplicates counted).
    package var edgeCount: Int { targets.count }

    /// The strong edges of `graph`, sharing its storage (no copy).
    ///
    /// - Complexity: O(1).
    package init(_ graph: StrongReferenceGraph) {
        self.init(nodeCount: graph.nodeCount, offsets: graph.offsets, targets: graph.targets)
    }

    /// Builds the out-edges of the strong references of `graph`, each node's neighbours in the order its
    /// references appear in ``ObjectGraph/references``.
    ///
    /// - Complexity: O(*n* + *e*) for *n* nodes and *e* references.
    package init(outEdgesOf graph: ObjectGraph) {
        self.init(StrongReferenceGraph(graph))
    }

    /// Builds the adjacency of a graph given as one list of successors per node (`successors[n]` are the
    /// nodes `n` references strongly), for callers that work on another graph than an ``ObjectGraph``.
    ///
    /// - Complexity: O(*n* + *e*).
    package init(successors: [[Int]]) {
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(successors.count + 1)
        var targets: [UInt32] = []
        for list in successors {
            targets.append(contentsOf: list.lazy.map { UInt32($0) })
            offsets.append(UInt32(targets.count))
        }
        self.init(nodeCount: successors.count, offsets: offsets, targets: targets)
    }

    private init(nodeCount: Int, offsets: [UInt32], targets: [UInt32]) {
        self.nodeCount = nodeCount
        self.offsets = offsets
        self.targets = targets
    }

    /// Whether `reference` is a strong reference between two valid node indices.
    static func isCounted(_ reference: Reference, nodeCount: Int) -> Bool {
        reference.ownership == .strong
            && reference.from >= 0 && reference.from < nodeCount
            && reference.to >= 0 && reference.to < nodeCount
    }

    /// The neighbours of `node`, one entry per strong edge.
    ///
    /// - Complexity: O(1).
    package func neighbors(of node: Int) -> Neighbors {
        targets[Int(offsets[node])..<Int(offsets[node + 1])].lazy.map { Int($0) }
    }

    /// Calls `body` with the CSR arrays themselves: node `n`'s neighbours are
    /// `targets[offsets[n] ..< offsets[n + 1]]`. For passes over every node, where ``neighbors(of:)``
    /// would pay a slice per node.
    package func withUnsafeCSR<R>(
        _ body: (_ offsets: UnsafeBufferPointer<UInt32>, _ targets: UnsafeBufferPointer<UInt32>) throws -> R
    ) rethrows -> R {
        try offsets.withUnsafeBufferPointer { offsets in
            try targets.withUnsafeBufferPointer { targets in try body(offsets, targets) }
        }
    }

    /// The number of strong edges leaving `node` (duplicates counted).
    ///
    /// - Complexity: O(1).
    package func degree(of node: Int) -> Int {
        Int(offsets[node + 1] - offsets[node])
    }

    /// The same edges reversed: in the result, a node's neighbours are the sources of its in-edges, in
    /// ascending node order (one entry per edge).
    ///
    /// - Complexity: O(*n* + *e*) (a counting sort, no comparisons).
    package func transposed() -> StrongAdjacency {
        var counts = [UInt32](repeating: 0, count: nodeCount + 1)
        for target in targets {
            counts[Int(target) + 1] += 1
        }
        for node in 0..<nodeCount {
            counts[node + 1] += counts[node]
        }
        // Filled backwards, as in ``StrongReferenceGraph/init(_:)``, so that sources stay ascending
        // without a second array of cursors.
        var sources = [UInt32](repeating: 0, count: targets.count)
        for source in stride(from: nodeCount - 1, through: 0, by: -1) {
            for target in neighbors(of: source).reversed() {
                counts[target + 1] -= 1
                sources[Int(counts[target + 1])] = UInt32(source)
            }
        }
        for node in 0..<nodeCount {
            counts[node] = counts[node + 1]
        }
        counts[nodeCount] = UInt32(sources.count)
        return StrongAdjacency(nodeCount: nodeCount, offsets: counts, targets: sources)
    }
}
