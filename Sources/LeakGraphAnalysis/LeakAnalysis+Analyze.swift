import LeakGraphModel

extension LeakAnalysis {
    /// Finds the leaked objects of `graph` and groups them into root cycles.
    ///
    /// 1. **External references.** For every node, `external = retainCount − strong in-edges`. Nodes with
    ///    `external > 0` are held from outside the graph. Nodes with `external < 0` (more strong edges than
    ///    the count explains: misread, or changed during the walk) are recorded in ``anomalies`` and also
    ///    treated as held, so no conclusion rests on them. Both are ``roots``.
    /// 2. **Reachability.** A depth-first search over strong edges from the roots; what is not reached is
    ///    leaked.
    /// 3. **Proof.** Every unreached node must satisfy `retainCount ≥ 1` and `retainCount ==` its strong
    ///    in-edges from unreached nodes (see ``verifyProofs(in:)``). A node that fails is excluded: it
    ///    becomes a root, reachability continues from it, and the check repeats until no node fails.
    ///    Reachability only grows and an unreached node's in-edges all come from unreached nodes, so the
    ///    repeat finds nothing new after the first exclusion round; in practice the only failures are
    ///    objects with a retain count of 0 and no strong in-edges (objects that died during the check),
    ///    which take what they hold with them.
    /// 4. **Components.** Strongly connected components of the leaked subgraph over strong edges
    ///    (iterative Tarjan). A **root cycle** is a component with more than one member, or one member
    ///    with a strong self-reference, that has no strong in-edge from another leaked component. Root
    ///    cycles are numbered by their smallest member index.
    /// 5. **Held objects.** Every other leaked object is assigned to the first root cycle, in id order,
    ///    that reaches it over strong edges (one breadth-first pass per cycle that stops at objects already
    ///    assigned, so each object is visited once). Because of the proof, every leaked object is in or
    ///    held by some root cycle. Cyclic components among held objects (a cycle kept alive only by
    ///    another cycle) are listed in ``RootCycle/heldCycles``.
    ///
    /// Every pass is iterative with heap-allocated work lists, so a million-object chain or a
    /// hundred-thousand-object ring needs no deep call stack. Duplicate strong references count once each.
    ///
    /// - Complexity: O(*n* + *e*) time and memory for *n* nodes and *e* references.
    public static func analyze(_ graph: ObjectGraph) -> LeakAnalysis {
        let nodeCount = graph.nodes.count
        let strongOut = StrongAdjacency(outEdgesOf: graph)

        var ignoredReferences: [Int] = []
        for (index, reference) in graph.references.enumerated()
        where !(0..<nodeCount).contains(reference.from) || !(0..<nodeCount).contains(reference.to) {
            ignoredReferences.append(index)
        }

        // 1–3. External references and roots, reachability, the proof (shared with `leakedNodes(of:)`).
        var isOrphan = [Bool](repeating: false, count: graph.orphans.isEmpty ? 0 : nodeCount)
        for node in graph.orphans where (0..<nodeCount).contains(node) { isOrphan[node] = true }
        let reachability = reachability(strongOut, isOrphan: isOrphan) { graph.nodes[$0].retainCount }
        let strongIn = strongOut.transposed()
        var externalCounts = [Int](repeating: 0, count: nodeCount)
        for node in 0..<nodeCount {
            externalCounts[node] = graph.nodes[node].retainCount - strongIn.degree(of: node)
        }
        let leakedMask = reachability.reached.map { !$0 }
        var leaked: [Int] = []
        var leakedBytes = 0
        for node in 0..<nodeCount where leakedMask[node] {
            leaked.append(node)
            leakedBytes += graph.nodes[node].size
        }

        // 4. Components of the leaked subgraph and root cycles. Tarjan runs on the leaked subgraph alone,
        //    renumbered 0 ..< leaked.count, so its work arrays are as large as the leak, not the heap.
        var localIndex = [Int32](repeating: -1, count: nodeCount)
        for (local, node) in leaked.enumerated() { localIndex[node] = Int32(local) }
        let leakedSuccessors = leaked.map { node -> [Int] in
            Array(
                strongOut.neighbors(of: node).compactMap { target in leakedMask[target] ? Int(localIndex[target]) : nil
                })
        }
        let components = StronglyConnectedComponents.compute(StrongAdjacency(successors: leakedSuccessors))
        localIndex = []
        var component = [Int](repeating: -1, count: nodeCount)
        for (local, node) in leaked.enumerated() { component[node] = components.component[local] }
        var componentSize = [Int](repeating: 0, count: components.count)
        var hasSelfEdge = [Bool](repeating: false, count: components.count)
        var hasForeignInEdge = [Bool](repeating: false, count: components.count)
        for node in leaked {
            componentSize[component[node]] += 1
            for target in strongOut.neighbors(of: node) where leakedMask[target] {
                if target == node {
                    hasSelfEdge[component[node]] = true
                } else if component[target] != component[node] {
                    hasForeignInEdge[component[target]] = true
                }
            }
        }
        // A component with an orphan (retains held by nothing) and no leaked holder is a root group
        // too, cyclic or not: nothing else explains it.
        var hasOrphan = [Bool](repeating: false, count: components.count)
        for node in leaked where !isOrphan.isEmpty && isOrphan[node] && externalCounts[node] > 0 {
            hasOrphan[component[node]] = true
        }
        var cycleOfComponent = [Int](repeating: -1, count: components.count)
        var cycleCount = 0
        var orphanGroup: [Bool] = []
        for node in leaked {
            let c = component[node]
            let cyclic = componentSize[c] > 1 || hasSelfEdge[c]
            if cycleOfComponent[c] == -1, !hasForeignInEdge[c], cyclic || hasOrphan[c] {
                cycleOfComponent[c] = cycleCount
                cycleCount += 1
                orphanGroup.append(!cyclic)
            }
        }
        var members = [[Int]](repeating: [], count: cycleCount)
        for node in leaked where cycleOfComponent[component[node]] >= 0 {
            members[cycleOfComponent[component[node]]].append(node)
        }

        // 5. Held objects: the first root cycle (by id) that reaches them.
        let grouping = holdings(
            members: members, visitOrder: Array(0..<cycleCount), leaked: leaked, leakedMask: leakedMask,
            strongOut: strongOut, component: component, isCyclic: { componentSize[$0] > 1 || hasSelfEdge[$0] })
        let cycleIndex = grouping.cycleIndex
        let rootCycles = (0..<cycleCount).map {
            RootCycle(
                id: $0, members: members[$0], holds: grouping.holds[$0], heldCycles: grouping.heldCycles[$0],
                isOrphan: orphanGroup[$0])
        }

        var roots: [Int] = []
        for node in 0..<nodeCount where reachability.isRoot[node] {
            roots.append(node)
        }
        return LeakAnalysis(
            graph: graph, leaked: leaked, rootCycles: rootCycles, roots: roots, anomalies: reachability.anomalies,
            excludedByProof: reachability.excluded.sorted(), ignoredReferences: ignoredReferences,
            leakedBytes: leakedBytes,
            externalCounts: externalCounts, leakedMask: leakedMask, cycleIndex: cycleIndex, strongIn: strongIn
        )
    }

    /// Step 5 of ``analyze(_:)``, shared with ``excusing(rootCycles:libraryReference:)``: every leaked object outside the
    /// root cycles' `members` goes to the first cycle in `visitOrder` that reaches it over strong edges (one
    /// breadth-first pass per cycle that stops at objects already assigned); the cyclic components
    /// (`isCyclic`, by `component` number) among a cycle's held objects are its held cycles, ordered by
    /// their smallest member.
    ///
    /// - Complexity: O(*n* + *e*).
    static func holdings(
        members: [[Int]], visitOrder: [Int], leaked: [Int], leakedMask: [Bool], strongOut: StrongAdjacency,
        component: [Int], isCyclic: (Int) -> Bool
    ) -> (cycleIndex: [Int], holds: [[Int]], heldCycles: [[[Int]]]) {
        var cycleIndex = [Int](repeating: -1, count: leakedMask.count)
        var isMember = [Bool](repeating: false, count: leakedMask.count)
        for (cycle, nodes) in members.enumerated() {
            for node in nodes {
                cycleIndex[node] = cycle
                isMember[node] = true
            }
        }
        var queue: [Int] = []
        for cycle in visitOrder {
            queue.removeAll(keepingCapacity: true)
            queue.append(contentsOf: members[cycle])
            var head = 0
            while head < queue.count {
                let node = queue[head]
                head += 1
                for target in strongOut.neighbors(of: node) where leakedMask[target] && cycleIndex[target] == -1 {
                    cycleIndex[target] = cycle
                    queue.append(target)
                }
            }
        }
        var holds = [[Int]](repeating: [], count: members.count)
        // Cycles among held objects: cyclic components (not root cycles) grouped under their root cycle.
        var heldCycles = [[[Int]]](repeating: [], count: members.count)
        var heldCycleOfComponent: [Int: Int] = [:]
        for node in leaked where cycleIndex[node] >= 0 && !isMember[node] {
            let cycle = cycleIndex[node]
            holds[cycle].append(node)
            let c = component[node]
            guard isCyclic(c) else { continue }
            if let position = heldCycleOfComponent[c] {
                heldCycles[cycle][position].append(node)
            } else {
                heldCycleOfComponent[c] = heldCycles[cycle].count
                heldCycles[cycle].append([node])
            }
        }
        return (cycleIndex, holds, heldCycles)
    }
}
