import LeakGraphModel

extension LeakAnalysis {
    /// The same analysis with the root cycles `excused` (by id) excusing only themselves: every cycle among
    /// the objects they held becomes a root cycle of its own (``RootCycle/heldBy``), with what it holds.
    ///
    /// A known leak of a library (XCTest's root suite, which holds every test case) is not the checked
    /// code's mistake, but what it holds may be: a cycle a test case stores leaks the moment its holder is
    /// released. So, among the objects an excused cycle held:
    ///
    /// - objects that a root cycle that is not excused also reaches go to the first such cycle (by id);
    /// - each strongly connected component of the remaining objects that contains a cycle of their own —
    ///   more than one member, or a strong self-reference, over strong references that are not
    ///   `libraryReference`s (the excused library's own links, such as XCTest's `test` ⇄ `testRun` between
    ///   every test and its run, which make every test case a cycle with its run) — and that no other such
    ///   component reaches becomes a root cycle, ``RootCycle/heldBy`` the excused cycle that held it;
    /// - the other held objects go to the first of those new cycles (by id) that reaches them, and what
    ///   none reaches stays with the excused cycle.
    ///
    /// The leaked objects, roots and proofs are unchanged (the same objects are leaked, for the same
    /// reasons); only their grouping is. Root cycles are renumbered by their smallest member, as
    /// ``analyze(_:)`` numbers them; excused ones have ``RootCycle/isExcused`` set. Which cycles to excuse
    /// is the caller's decision (the report's known library leaks): the analysis knows no library.
    ///
    /// - Complexity: O(*n* + *e*).
    public func excusing(
        rootCycles excused: Set<Int>, libraryReference: (Reference) -> Bool = { _ in false }
    ) -> LeakAnalysis {
        let excused = excused.filter { rootCycles.indices.contains($0) }
        guard !excused.isEmpty else { return self }
        let nodeCount = graph.nodes.count
        let strongOut = StrongAdjacency(outEdgesOf: graph)

        // Marks `mark` on everything reachable from the nodes in `queue` (already marked) over strong
        // references to nodes `allowed` lets in. Each node is marked, and its edges read, once.
        func markReachable(from queue: inout [Int], in mark: inout [Bool], allowed: (Int) -> Bool) {
            var head = 0
            while head < queue.count {
                let node = queue[head]
                head += 1
                for target in strongOut.neighbors(of: node) where allowed(target) && !mark[target] {
                    mark[target] = true
                    queue.append(target)
                }
            }
        }

        // Objects a cycle that is not excused reaches keep belonging to such a cycle.
        var reachedByOthers = [Bool](repeating: false, count: nodeCount)
        var queue: [Int] = []
        for cycle in rootCycles where !excused.contains(cycle.id) && !cycle.isExcused {
            for node in cycle.members where !reachedByOthers[node] {
                reachedByOthers[node] = true
                queue.append(node)
            }
        }
        let leakedMask = leakedMask
        markReachable(from: &queue, in: &reachedByOthers) { leakedMask[$0] }

        // Components of the leaked subgraph (for held cycles), and the candidates: what only excused
        // cycles held.
        let components = StronglyConnectedComponents.compute(strongOut, included: leakedMask)
        let component = components.component
        var componentSize = [Int](repeating: 0, count: components.count)
        var hasSelfEdge = [Bool](repeating: false, count: components.count)
        for node in leaked {
            componentSize[component[node]] += 1
            if strongOut.neighbors(of: node).contains(node) { hasSelfEdge[component[node]] = true }
        }
        let isCyclic = { (c: Int) in componentSize[c] > 1 || hasSelfEdge[c] }
        var isCandidate = [Bool](repeating: false, count: nodeCount)
        for id in excused {
            for node in rootCycles[id].holds where !reachedByOthers[node] { isCandidate[node] = true }
        }

        // The candidates' own cycles: components over their strong references, the library's left out.
        var ownSuccessors = [[Int]](repeating: [], count: nodeCount)
        for reference in graph.references
        where StrongAdjacency.isCounted(reference, nodeCount: nodeCount) && isCandidate[reference.from]
            && isCandidate[reference.to] && !libraryReference(reference)
        {
            ownSuccessors[reference.from].append(reference.to)
        }
        let own = StronglyConnectedComponents.compute(StrongAdjacency(successors: ownSuccessors), included: isCandidate)
        var ownSize = [Int](repeating: 0, count: own.count)
        var ownSelfEdge = [Bool](repeating: false, count: own.count)
        for node in leaked where isCandidate[node] {
            ownSize[own.component[node]] += 1
            if ownSuccessors[node].contains(node) { ownSelfEdge[own.component[node]] = true }
        }
        // A strongly connected component (over every strong reference) that contains such a cycle is one.
        var containsOwnCycle = [Bool](repeating: false, count: components.count)
        for node in leaked
        where isCandidate[node] && (ownSize[own.component[node]] > 1 || ownSelfEdge[own.component[node]]) {
            containsOwnCycle[component[node]] = true
        }

        // Candidates reached from another such component are held by it.
        var downstream = [Bool](repeating: false, count: nodeCount)
        for node in leaked where isCandidate[node] && containsOwnCycle[component[node]] {
            queue.removeAll(keepingCapacity: true)
            for target in strongOut.neighbors(of: node)
            where isCandidate[target] && component[target] != component[node] && !downstream[target] {
                downstream[target] = true
                queue.append(target)
            }
            markReachable(from: &queue, in: &downstream) { isCandidate[$0] }
        }

        // The new root cycles, with the old ones, numbered by their smallest member.
        var groups: [(members: [Int], isExcused: Bool, heldBy: Int?, isOrphan: Bool)] = rootCycles.map {
            ($0.members, $0.isExcused || excused.contains($0.id), $0.heldBy, $0.isOrphan)
        }
        var groupOfComponent: [Int: Int] = [:]
        for node in leaked where isCandidate[node] && !downstream[node] && containsOwnCycle[component[node]] {
            if let group = groupOfComponent[component[node]] {
                groups[group].members.append(node)
            } else {
                groupOfComponent[component[node]] = groups.count
                groups.append(([node], false, cycleIndex[node], false))
            }
        }
        let order = groups.indices.sorted { groups[$0].members[0] < groups[$1].members[0] }
        var newID = [Int](repeating: 0, count: groups.count)
        for (id, group) in order.enumerated() { newID[group] = id }
        let members = order.map { groups[$0].members }
        let visitOrder =
            order.indices.filter { !groups[order[$0]].isExcused } + order.indices.filter { groups[order[$0]].isExcused }
        let grouping = Self.holdings(
            members: members, visitOrder: visitOrder, leaked: leaked, leakedMask: leakedMask, strongOut: strongOut,
            component: component, isCyclic: isCyclic)
        let newCycles = order.enumerated().map { id, group in
            RootCycle(
                id: id, members: members[id], holds: grouping.holds[id], heldCycles: grouping.heldCycles[id],
                isOrphan: groups[group].isOrphan, isExcused: groups[group].isExcused,
                heldBy: groups[group].heldBy.map { newID[$0] })
        }
        return LeakAnalysis(
            graph: graph, leaked: leaked, rootCycles: newCycles, roots: roots, anomalies: anomalies,
            excludedByProof: excludedByProof, ignoredReferences: ignoredReferences, leakedBytes: leakedBytes,
            externalCounts: externalCounts, leakedMask: leakedMask, cycleIndex: grouping.cycleIndex, strongIn: strongIn)
    }
}
