import LeakGraphAnalysis
import LeakGraphModel
import Testing

/// A small deterministic generator (SplitMix64), so every run builds the same graphs.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// The analysis computed the slow, obvious way: transitive closure by repeated relaxation (cubic).
private struct BruteForce {
    var leaked: [Int] = []
    var rootCycles: [RootCycle] = []

    init(_ graph: ObjectGraph) {
        let n = graph.nodes.count
        var edge = [[Bool]](repeating: [Bool](repeating: false, count: n), count: n)
        var inDegree = [Int](repeating: 0, count: n)
        for r in graph.references where r.ownership == .strong {
            edge[r.from][r.to] = true
            inDegree[r.to] += 1
        }
        var reach = edge
        for k in 0 ..< n { for i in 0 ..< n where reach[i][k] { for j in 0 ..< n where reach[k][j] { reach[i][j] = true } } }

        var root = (0 ..< n).map { graph.nodes[$0].retainCount != inDegree[$0] }
        var isLeaked = [Bool](repeating: false, count: n)
        while true {
            for v in 0 ..< n {
                isLeaked[v] = !root[v] && !(0 ..< n).contains { root[$0] && reach[$0][v] }
            }
            let failing = (0 ..< n).filter { v in
                guard isLeaked[v] else { return false }
                let explained = graph.references.filter { $0.ownership == .strong && $0.to == v && isLeaked[$0.from] }.count
                return graph.nodes[v].retainCount < 1 || explained != graph.nodes[v].retainCount
            }
            if failing.isEmpty { break }
            for v in failing { root[v] = true }
        }
        leaked = (0 ..< n).filter { isLeaked[$0] }

        var memberSets: [[Int]] = []
        var assigned = [Bool](repeating: false, count: n)
        for v in leaked where !assigned[v] {
            let scc = leaked.filter { $0 == v || (reach[v][$0] && reach[$0][v]) }
            for m in scc { assigned[m] = true }
            let nontrivial = scc.count > 1 || edge[v][v]
            let enteredFromOutside = leaked.contains { u in !scc.contains(u) && scc.contains { edge[u][$0] } }
            if nontrivial && !enteredFromOutside { memberSets.append(scc) }
        }
        var holds = [[Int]](repeating: [], count: memberSets.count)
        for v in leaked where !memberSets.contains(where: { $0.contains(v) }) {
            if let c = memberSets.firstIndex(where: { set in set.contains { reach[$0][v] } }) {
                holds[c].append(v)
            }
        }
        // Cycles among held objects: held objects on a cycle, grouped by mutual reachability.
        var heldCycles = [[[Int]]](repeating: [], count: memberSets.count)
        for c in memberSets.indices {
            var grouped = Set<Int>()
            for v in holds[c] where !grouped.contains(v) && reach[v][v] {
                let group = holds[c].filter { $0 == v || (reach[v][$0] && reach[$0][v]) }
                grouped.formUnion(group)
                heldCycles[c].append(group)
            }
        }
        rootCycles = memberSets.indices.map {
            RootCycle(id: $0, members: memberSets[$0], holds: holds[$0], heldCycles: heldCycles[$0])
        }
    }
}

/// Builds the random graph for `seed`: up to 25 objects, mostly strong references, retain counts mostly
/// fully explained by the strong in-edges, some held from outside, a few too low (anomalies or dying).
private func randomGraph(seed: Int) -> ObjectGraph {
    var random = SplitMix64(state: UInt64(seed))
    let n = 2 + random.below(24)
    var f = GraphFixture()
    _ = f.objects(n, retainCount: 0)
    let edgeCount = random.below(n * 2 + 1)
    var inDegree = [Int](repeating: 0, count: n)
    for _ in 0 ..< edgeCount {
        let from = random.below(n)
        let to = random.below(n)
        let ownership: Ownership = random.below(5) == 0 ? .weak : .strong
        f.reference(from, to, ownership, "e")
        if ownership == .strong { inDegree[to] += 1 }
    }
    for v in 0 ..< n {
        switch random.below(20) {
        case 0, 1: f.graph.nodes[v].retainCount = inDegree[v] + 1
        case 2: f.graph.nodes[v].retainCount = max(0, inDegree[v] - 1)
        default: f.graph.nodes[v].retainCount = max(1, inDegree[v])  // an object nothing references is held from outside
        }
    }
    return f.graph
}

@Suite("Random graphs agree with a brute-force analysis")
struct RandomGraphTests {
    @Test("500 fixed-seed random graphs")
    func agreesWithBruteForce() {
        var withCycles = 0, withHeld = 0, withSeveralCycles = 0, withExclusions = 0, withAnomalies = 0
        for seed in 1 ... 500 {
            let graph = randomGraph(seed: seed)
            let analysis = LeakAnalysis.analyze(graph)
            let expected = BruteForce(graph)
            #expect(analysis.leaked == expected.leaked, "seed \(seed)")
            #expect(analysis.rootCycles == expected.rootCycles, "seed \(seed)")
            #expect(analysis.invariantViolations() == [], "seed \(seed)")
            if !analysis.rootCycles.isEmpty { withCycles += 1 }
            if analysis.rootCycles.count > 1 { withSeveralCycles += 1 }
            if analysis.rootCycles.contains(where: { !$0.holds.isEmpty }) { withHeld += 1 }
            if !analysis.excludedByProof.isEmpty { withExclusions += 1 }
            if !analysis.anomalies.isEmpty { withAnomalies += 1 }
        }
        // The seeds must exercise every case, or the comparison proves little.
        #expect(withCycles >= 50)
        #expect(withSeveralCycles >= 10)
        #expect(withHeld >= 10)
        #expect(withExclusions >= 10)
        #expect(withAnomalies >= 10)
    }
}

/// The graph of `nodes` of `graph` (ascending) and the references between them, as a check builds it
/// from a heap scan.
private func subgraph(of graph: ObjectGraph, nodes: [Int]) -> ObjectGraph {
    var position = [Int: Int]()
    for (index, node) in nodes.enumerated() { position[node] = index }
    let references = graph.references.compactMap { reference -> Reference? in
        guard let from = position[reference.from], let to = position[reference.to] else { return nil }
        return Reference(from: from, to: to, path: reference.path, ownership: reference.ownership)
    }
    return ObjectGraph(
        nodes: nodes.map { graph.nodes[$0] }, references: references, diagnostics: graph.diagnostics,
        trackedObjects: graph.trackedObjects, liveObjectsLeftOut: graph.nodes.count - nodes.count)
}

@Suite("The check's path: leaked objects found on the compact graph, then analysed alone")
struct CompactCheckPathTests {
    @Test("500 fixed-seed random graphs: same leaked objects, root cycles, suspects and fingerprints")
    func agreesWithWholeGraphAnalysis() {
        for seed in 1 ... 500 {
            let graph = randomGraph(seed: seed)
            let whole = LeakAnalysis.analyze(graph)
            let leaked = LeakAnalysis.leakedNodes(of: StrongReferenceGraph(graph))
            #expect(leaked == whole.leaked, "seed \(seed)")
            let part = LeakAnalysis.analyze(subgraph(of: graph, nodes: leaked))
            #expect(part.graph.liveObjects == graph.nodes.count, "seed \(seed)")
            #expect(part.leaked == Array(leaked.indices), "seed \(seed)")
            #expect(part.invariantViolations() == [], "seed \(seed)")
            let mapped = part.rootCycles.map {
                RootCycle(
                    id: $0.id, members: $0.members.map { leaked[$0] }, holds: $0.holds.map { leaked[$0] },
                    heldCycles: $0.heldCycles.map { $0.map { leaked[$0] } })
            }
            #expect(mapped == whole.rootCycles, "seed \(seed)")
            #expect(part.fingerprints() == whole.fingerprints(), "seed \(seed)")
            let partSuspects = part.suspectReferences().map { $0.map { [leaked[$0.from], leaked[$0.to]] } }
            let wholeSuspects = whole.suspectReferences().map { $0.map { [$0.from, $0.to] } }
            #expect(partSuspects == wholeSuspects, "seed \(seed)")
            #expect(part.suspectReferences().map { $0?.reason } == whole.suspectReferences().map { $0?.reason }, "seed \(seed)")
        }
    }
}
