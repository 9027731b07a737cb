import LeakGraphModel

/// What the analysis proved about one ``ObjectGraph``: which objects are leaked, how they group into
/// root cycles, and the accounting behind every verdict.
///
/// Build it with ``analyze(_:)``. The analysis keeps the graph it was computed from (``graph``), so
/// results derived from both (suspects, fingerprints, reports) cannot be given a mismatched pair. Node
/// indices are those of ``ObjectGraph/nodes``; every accessor taking a `node` expects a valid index.
///
/// A leaked object is a result, never an error: the analysis does not throw.
public struct LeakAnalysis: Sendable, Equatable {
    /// The graph this analysis was computed from.
    public internal(set) var graph: ObjectGraph
    /// The number of nodes of the analysed graph.
    public var nodeCount: Int { graph.nodes.count }
    /// The leaked nodes, ascending.
    public let leaked: [Int]
    /// The root cycles, ordered by their smallest member index; `rootCycles[i].id == i`.
    public let rootCycles: [RootCycle]
    /// The nodes reachability starts from, ascending: nodes with an unexplained (positive) or impossible
    /// (negative) external reference count, and nodes excluded because their proof failed.
    public let roots: [Int]
    /// Nodes with more strong in-edges than their retain count, ascending.
    ///
    /// Something was misread or changed during the walk. The analysis never reasons from such a count:
    /// the node is treated as externally held (a root).
    public let anomalies: [Int]
    /// Nodes that were unreachable but failed the proof (see ``verifyProofs(in:)``), ascending. They are
    /// treated as roots, so neither they nor what they reach are reported.
    public let excludedByProof: [Int]
    /// Indices into ``ObjectGraph/references`` of references whose endpoints are not valid node indices.
    /// They are ignored; an ignored strong reference leaves its target's count unexplained, which can
    /// only hide a leak, never invent one.
    public let ignoredReferences: [Int]
    /// The total size in bytes of the leaked objects.
    public let leakedBytes: Int

    /// `retainCount − strong in-degree`, per node.
    let externalCounts: [Int]
    /// Per node: `true` when leaked.
    let leakedMask: [Bool]
    /// Per node: the id of the root cycle it belongs to or is held by, or `-1`.
    let cycleIndex: [Int]
    /// The strong in-edges of every node (sources ascending).
    let strongIn: StrongAdjacency

    init(
        graph: ObjectGraph, leaked: [Int], rootCycles: [RootCycle], roots: [Int], anomalies: [Int],
        excludedByProof: [Int], ignoredReferences: [Int], leakedBytes: Int, externalCounts: [Int],
        leakedMask: [Bool], cycleIndex: [Int], strongIn: StrongAdjacency
    ) {
        self.graph = graph
        self.leaked = leaked
        self.rootCycles = rootCycles
        self.roots = roots
        self.anomalies = anomalies
        self.excludedByProof = excludedByProof
        self.ignoredReferences = ignoredReferences
        self.leakedBytes = leakedBytes
        self.externalCounts = externalCounts
        self.leakedMask = leakedMask
        self.cycleIndex = cycleIndex
        self.strongIn = strongIn
    }

    /// Whether `node` is leaked.
    ///
    /// - Complexity: O(1).
    public func isLeaked(_ node: Int) -> Bool {
        leakedMask[node]
    }

    /// The id of the root cycle `node` belongs to or is held by, or `nil` when it is not leaked.
    ///
    /// - Complexity: O(1).
    public func cycleOf(_ node: Int) -> Int? {
        let cycle = cycleIndex[node]
        return cycle >= 0 ? cycle : nil
    }

    /// The references to `node` the walk did not find: its retain count minus its strong in-edges.
    ///
    /// Positive: something outside the graph (a stack slot, a global, a C structure) holds it. Negative:
    /// an anomaly (see ``anomalies``).
    ///
    /// - Complexity: O(1).
    public func externalReferences(of node: Int) -> Int {
        externalCounts[node]
    }

    /// The proof that `node` is leaked: the leaked source node of every strong reference into it, one
    /// entry per reference, ascending. Its length equals the node's retain count. Empty when `node` is not
    /// leaked.
    ///
    /// - Complexity: O(*k*) for *k* strong in-edges.
    public func proof(of node: Int) -> [Int] {
        guard leakedMask[node] else { return [] }
        return Array(strongIn.neighbors(of: node).filter { leakedMask[$0] })
    }
}
