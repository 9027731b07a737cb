import LeakGraphModel

/// The strong references of an ``ObjectGraph`` in compressed sparse row (CSR) form.
///
/// Node `n`'s neighbours are `targets[offsets[n] ..< offsets[n + 1]]`: one entry per strong reference, so
/// two strong references from `a` to `b` appear twice. Weak, unowned and unmanaged references are left out:
/// they never keep an object alive. References whose endpoints are not valid node indices are left out too.
///
/// The value is built once and read many times by the analysis; it never recurses.
package struct StrongAdjacency: Sendable, Equatable {
    /// The number of nodes (valid indices are `0 ..< nodeCount`).
    package let nodeCount: Int
    /// `offsets[n] ..< offsets[n + 1]` is the range of node `n`'s neighbours in `targets`.
    private let offsets: [Int]
    /// The neighbours of every node, node after node.
    private let targets: [Int]

    /// The number of strong edges (duplicates counted).
    package var edgeCount: Int { targets.count }

    /// Builds the out-edges of the strong references of `graph`, each node's neighbours in the order its
    /// references appear in ``ObjectGraph/references``.
    ///
    /// - Complexity: O(*n* + *e*) for *n* nodes and *e* references.
    package init(outEdgesOf graph: ObjectGraph) {
        let nodeCount = graph.nodes.count
        var counts = [Int](repeating: 0, count: nodeCount + 1)
        for reference in graph.references where Self.isCounted(reference, nodeCount: nodeCount) {
            counts[reference.from + 1] += 1
        }
        for node in 0 ..< nodeCount {
            counts[node + 1] += counts[node]
        }
        // Filled backwards from each node's end, so no second array of cursors is needed: `counts[n + 1]`
        // walks down to `counts[n]`, and is restored by the walk itself.
        var targets = [Int](repeating: 0, count: counts[nodeCount])
        for reference in graph.references.reversed() where Self.isCounted(reference, nodeCount: nodeCount) {
            counts[reference.from + 1] -= 1
            targets[counts[reference.from + 1]] = reference.to
        }
        // Each `counts[n + 1]` now holds node n's start: shift by one to get the offsets.
        for node in 0 ..< nodeCount {
            counts[node] = counts[node + 1]
        }
        counts[nodeCount] = targets.count
        self.init(nodeCount: nodeCount, offsets: counts, targets: targets)
    }

    /// Builds the adjacency of a graph given as one list of successors per node (`successors[n]` are the
    /// nodes `n` references strongly), for callers that work on another graph than an ``ObjectGraph``.
    ///
    /// - Complexity: O(*n* + *e*).
    package init(successors: [[Int]]) {
        var offsets = [0]
        offsets.reserveCapacity(successors.count + 1)
        for list in successors {
            offsets.append(offsets[offsets.count - 1] + list.count)
        }
        self.init(nodeCount: successors.count, offsets: offsets, targets: successors.flatMap { $0 })
    }

    private init(nodeCount: Int, offsets: [Int], targets: [Int]) {
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
    package func neighbors(of node: Int) -> ArraySlice<Int> {
        targets[offsets[node] ..< offsets[node + 1]]
    }

    /// The number of strong edges leaving `node` (duplicates counted).
    ///
    /// - Complexity: O(1).
    package func degree(of node: Int) -> Int {
        offsets[node + 1] - offsets[node]
    }

    /// The same edges reversed: in the result, a node's neighbours are the sources of its in-edges, in
    /// ascending node order (one entry per edge).
    ///
    /// - Complexity: O(*n* + *e*) (a counting sort, no comparisons).
    package func transposed() -> StrongAdjacency {
        var counts = [Int](repeating: 0, count: nodeCount + 1)
        for target in targets {
            counts[target + 1] += 1
        }
        for node in 0 ..< nodeCount {
            counts[node + 1] += counts[node]
        }
        // Filled backwards, as in ``init(outEdgesOf:)``, so that sources stay ascending without a second
        // array of cursors.
        var sources = [Int](repeating: 0, count: targets.count)
        for source in stride(from: nodeCount - 1, through: 0, by: -1) {
            for target in neighbors(of: source).reversed() {
                counts[target + 1] -= 1
                sources[counts[target + 1]] = source
            }
        }
        for node in 0 ..< nodeCount {
            counts[node] = counts[node + 1]
        }
        counts[nodeCount] = sources.count
        return StrongAdjacency(nodeCount: nodeCount, offsets: counts, targets: sources)
    }
}
