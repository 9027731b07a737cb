import LeakGraphModel

extension LeakAnalysis {
    /// The proof rule for one object presumed leaked: its retain count is at least 1 and equals
    /// `explained`, the number of strong references into it from objects presumed leaked.
    ///
    /// A retain count of 0 with nothing pointing at it is an object being destroyed, not a leak.
    ///
    /// For an orphan (``ObjectGraph/orphans``) the retains beyond `explained` were proven held by
    /// nothing, so the rule is `retainCount ≥ explained`.
    static func proofHolds(retainCount: Int, explained: Int, orphaned: Bool = false) -> Bool {
        retainCount >= 1 && (orphaned ? explained <= retainCount : explained == retainCount)
    }

    /// Checks the proof of every leaked object against ``graph``, independently of the analysis' own
    /// tables: its retain count must be at least 1 and equal the number of strong references into it from
    /// leaked objects (duplicates counted).
    ///
    /// ``analyze(_:)`` applies the same rule and excludes every object that fails it, so for an analysis
    /// the result is empty; tests run it as an invariant.
    ///
    /// - Returns: The leaked nodes whose proof fails, ascending.
    /// - Complexity: O(*n* + *e*).
    public func verifyProofs() -> [Int] {
        let nodeCount = graph.nodes.count
        var explained = [Int](repeating: 0, count: nodeCount)
        for reference in graph.references
        where StrongAdjacency.isCounted(reference, nodeCount: nodeCount)
            && leakedMask[reference.from] && leakedMask[reference.to]
        {
            explained[reference.to] += 1
        }
        let orphans = Set(graph.orphans)
        return leaked.filter { node in
            !Self.proofHolds(
                retainCount: graph.nodes[node].retainCount, explained: explained[node], orphaned: orphans.contains(node)
            )
        }
    }

    /// Checks every structural promise of the analysis against ``graph`` and describes each broken one.
    ///
    /// The promises: every proof holds (``verifyProofs()``); no strong edge leads from a live object to
    /// a leaked one; ``leaked`` is exactly the members and held objects of the root cycles, each once;
    /// ``cycleOf(_:)`` agrees with ``rootCycles``; no root cycle has a strong in-edge from a leaked object
    /// outside it, except a cycle ``RootCycle/heldBy`` an excused cycle, from the members and held objects
    /// of excused cycles; every held object is reachable from its cycle.
    ///
    /// - Returns: One sentence per broken promise; empty when all hold.
    /// - Complexity: O(*n* + *e*).
    public func invariantViolations() -> [String] {
        var violations: [String] = []
        let nodeCount = graph.nodes.count
        for node in verifyProofs() {
            violations.append("proof fails for leaked node \(node)")
        }
        for cycle in rootCycles {
            if let holder = cycle.heldBy, !rootCycles.indices.contains(holder) || !rootCycles[holder].isExcused {
                violations.append("cycle \(cycle.id) is held by \(holder), which is not an excused cycle")
            }
        }
        var isMember = [Bool](repeating: false, count: nodeCount)
        var seen = [Int](repeating: 0, count: nodeCount)
        for cycle in rootCycles {
            for node in cycle.members {
                isMember[node] = true
                seen[node] += 1
                if cycleOf(node) != cycle.id {
                    violations.append(
                        "member \(node) of cycle \(cycle.id) has cycleOf \(String(describing: cycleOf(node)))")
                }
            }
            let held = Set(cycle.holds)
            for node in cycle.heldCycles.joined() where !held.contains(node) {
                violations.append("node \(node) is in a held cycle of cycle \(cycle.id) but not among its held objects")
            }
            for node in cycle.holds {
                seen[node] += 1
                if cycleOf(node) != cycle.id {
                    violations.append(
                        "held node \(node) of cycle \(cycle.id) has cycleOf \(String(describing: cycleOf(node)))")
                }
            }
        }
        for node in 0..<nodeCount {
            let expected = leakedMask[node] ? 1 : 0
            if seen[node] != expected {
                let leaked = leakedMask[node]
                violations.append("node \(node) (leaked: \(leaked)) appears \(seen[node]) times in root cycles")
            }
        }
        for reference in graph.references where StrongAdjacency.isCounted(reference, nodeCount: nodeCount) {
            let (from, to) = (reference.from, reference.to)
            if !leakedMask[from] && leakedMask[to] {
                violations.append("live node \(from) strongly references leaked node \(to)")
            }
            if leakedMask[from], isMember[to], cycleIndex[from] != cycleIndex[to] || !isMember[from],
                rootCycles[cycleIndex[to]].heldBy == nil || cycleIndex[from] < 0
                    || !rootCycles[cycleIndex[from]].isExcused
            {
                violations.append("root cycle \(cycleIndex[to]) has a strong in-edge from leaked node \(from)")
            }
        }
        // Every held object must be reachable from its cycle's members.
        let strongOut = StrongAdjacency(outEdgesOf: graph)
        var reached = [Bool](repeating: false, count: nodeCount)
        for cycle in rootCycles {
            var queue = cycle.members
            for node in queue { reached[node] = true }
            var head = 0
            while head < queue.count {
                let node = queue[head]
                head += 1
                for target in strongOut.neighbors(of: node)
                where !reached[target] && cycleIndex[target] == cycle.id {
                    reached[target] = true
                    queue.append(target)
                }
            }
            for node in cycle.holds where !reached[node] {
                violations.append("held node \(node) is not reachable from cycle \(cycle.id)")
            }
        }
        return violations
    }
}
