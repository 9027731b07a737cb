import LeakGraphModel

extension LeakAnalysis {
    /// What steps 1–3 of the analysis decide for every node: the roots, what is reached from them, and
    /// what the proof excluded. Shared by ``analyze(_:)`` and ``leakedNodes(of:)``.
    struct Reachability {
        /// Per node: reachable from a root over strong references (`false`: leaked).
        var reached: [Bool]
        /// Per node: a root (an unexplained or impossible external count, or excluded by the proof);
        /// empty when the caller did not ask (``leakedNodes(of:orphans:)``).
        var isRoot: [Bool]
        /// Nodes with more strong in-edges than their retain count, ascending.
        var anomalies: [Int]
        /// Nodes that were unreached but failed the proof, ascending.
        var excluded: [Int]
    }

    /// The leaked nodes of a heap walk's strong-reference graph, ascending: exactly the nodes
    /// ``analyze(_:)`` reports as ``leaked`` for the ``ObjectGraph`` the walk would build (same external
    /// references, reachability and proof), computed in a few bytes per node without that graph.
    ///
    /// A check runs this on the whole heap, then builds the ``ObjectGraph`` of the leaked objects alone and
    /// analyses it (there the proof is checked again on the typed references, and cycles are grouped).
    ///
    /// - Complexity: O(*n* + *e*) time, about 2 bytes per node of extra memory (plus the search's
    ///   frontier).
    package static func leakedNodes(of graph: StrongReferenceGraph, orphans: [Int] = []) -> [Int] {
        let counts = graph.retainCounts
        var isOrphan = [Bool](repeating: false, count: orphans.isEmpty ? 0 : graph.nodeCount)
        for node in orphans { isOrphan[node] = true }
        let reachability = reachability(StrongAdjacency(graph), isOrphan: isOrphan, keepsRoots: false) {
            Int(counts[$0])
        }
        var leaked: [Int] = []
        for node in 0..<graph.nodeCount where !reachability.reached[node] {
            leaked.append(node)
        }
        return leaked
    }

    /// The nodes of a heap walk's strong-reference graph with unexplained retains (a retain count
    /// above their strong in-edges), ascending: the roots whose holder the walk did not see, which
    /// the holder scan may prove orphaned.
    ///
    /// - Complexity: O(*n* + *e*).
    package static func unexplainedNodes(of graph: StrongReferenceGraph) -> [Int] {
        var counted = CompactCounts(repeatingZero: graph.nodeCount)
        counted.incrementing { increment in
            for target in graph.targets { increment(Int(target)) }
        }
        var nodes: [Int] = []
        for node in 0..<graph.nodeCount where graph.retainCounts[node] > counted[node] {
            nodes.append(node)
        }
        return nodes
    }

    /// Steps 1–3 of ``analyze(_:)``: external references and roots, reachability, and the proof.
    ///
    /// The proof counts, for every unreached node, its strong in-edges from unreached nodes in one pass
    /// over the unreached nodes' out-edges, so no reversed adjacency is needed.
    ///
    /// - Complexity: O(*n* + *e*).
    /// `isOrphan` (empty, or one entry per node) marks the nodes whose unexplained retains the holder
    /// scan proved held by nothing: they are no roots, and their proof allows those retains.
    /// `keepsRoots: false` leaves ``Reachability/isRoot`` empty (a byte per node less).
    static func reachability(
        _ strongOut: StrongAdjacency, isOrphan: [Bool] = [], keepsRoots: Bool = true, retainCount: (Int) -> Int
    ) -> Reachability {
        // The passes below run over every node and edge (millions in a big heap): they read the CSR
        // arrays through buffers, not a slice per node.
        strongOut.withUnsafeCSR { offsets, targets in
            reachability(
                nodeCount: strongOut.nodeCount, offsets: offsets, targets: targets, isOrphan: isOrphan,
                keepsRoots: keepsRoots,
                retainCount: retainCount)
        }
    }

    private static func reachability(
        nodeCount: Int, offsets: UnsafeBufferPointer<UInt32>, targets: UnsafeBufferPointer<UInt32>, isOrphan: [Bool],
        keepsRoots: Bool, retainCount: (Int) -> Int
    ) -> Reachability {
        let orphaned = { (node: Int) in !isOrphan.isEmpty && isOrphan[node] }
        // 1. External references (`retainCount − strong in-degree`) and roots.
        // A byte per node (CompactCounts): in-degrees of 255 and more are kept exactly beside.
        var counted = CompactCounts(repeatingZero: nodeCount)
        counted.incrementing { increment in
            for target in targets { increment(Int(target)) }
        }
        var isRoot = [Bool](repeating: false, count: keepsRoots ? nodeCount : 0)
        var anomalies: [Int] = []
        var seeds: [UInt32] = []
        for node in 0..<nodeCount {
            let external = retainCount(node) - Int(counted[node])
            if external < 0 || (external > 0 && !orphaned(node)) {
                if keepsRoots { isRoot[node] = true }
                seeds.append(UInt32(node))
            }
            if external < 0 {
                anomalies.append(node)
            }
        }
        // Released before the search: the proof counts again, among the unreached nodes alone, and only
        // when there are some (a heap with no leak pays for one count array, not two at once).
        counted = CompactCounts()

        // 2 + 3. Reachability, then the proof; failures become roots until stable. The search is
        //    depth-first with a stack of the nodes still to expand: the set reached is the same as
        //    breadth-first, and the stack holds the frontier only, not every reached node.
        var reached = [Bool](repeating: false, count: nodeCount)
        var stack: [UInt32] = []
        var excluded: [Int] = []
        while true {
            reached.withUnsafeMutableBufferPointer { reached in
                for seed in seeds where !reached[Int(seed)] {
                    reached[Int(seed)] = true
                    stack.append(seed)
                    while let node = stack.popLast() {
                        for edge in Int(offsets[Int(node)])..<Int(offsets[Int(node) + 1]) {
                            let target = Int(targets[edge])
                            if !reached[target] {
                                reached[target] = true
                                stack.append(UInt32(target))
                            }
                        }
                    }
                }
            }
            // Strong in-edges of every unreached node from unreached nodes.
            guard reached.contains(false) else { break }
            counted = CompactCounts(repeatingZero: nodeCount)
            reached.withUnsafeBufferPointer { reached in
                counted.incrementing { increment in
                    for node in 0..<nodeCount where !reached[node] {
                        for edge in Int(offsets[node])..<Int(offsets[node + 1]) {
                            let target = Int(targets[edge])
                            if !reached[target] { increment(target) }
                        }
                    }
                }
            }
            var failures: [UInt32] = []
            for node in 0..<nodeCount where !reached[node] {
                if !proofHolds(retainCount: retainCount(node), explained: Int(counted[node]), orphaned: orphaned(node))
                {
                    failures.append(UInt32(node))
                }
            }
            counted = CompactCounts()
            if failures.isEmpty { break }
            for node in failures {
                if keepsRoots { isRoot[Int(node)] = true }
                excluded.append(Int(node))
            }
            seeds = failures
        }
        return Reachability(reached: reached, isRoot: isRoot, anomalies: anomalies, excluded: excluded)
    }
}
