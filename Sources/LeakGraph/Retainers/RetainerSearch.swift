import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording
import LeakGraphReport

/// Finds why objects are alive: in one frozen heap, the shortest chain of strong references from a
/// root to each object asked about (`RetainerPaths`), labelled from a typed walk of the chain's
/// objects, and what holds each root — found by the holder scan, named afterwards
/// (``RetainerHolderNaming``).
///
/// The chains are built into strings and the typed graph dropped before the scan runs, and the
/// check's own frames and freed buffers are kept out of the scan (`HolderScan/enterCheck()`; a
/// checking thread's frees are zeroed), so the check's copies of the roots' addresses are not
/// taken for holders.
enum RetainerSearch {
    /// What a search found.
    struct Found {
        /// One chain per object that a root reaches, in the order the objects were selected.
        var chains: [RetainerChain]
        /// How many objects were selected.
        var matched: Int
        /// How many of them no root reaches (leaked: the leak report explains them).
        var leaked: Int
    }

    /// The chains of the live objects `select` picks from the heap scan (node indices, given the scan
    /// and the frozen snapshot's addresses), at most `limit` of them.
    ///
    /// - Parameter scanForHolders: run the holder scan to say what holds each root (it stops the
    ///   other threads for a moment); without it every holder is `RetainerChain/Holder/Kind/unknown`.
    static func find(
        limit: Int = 10, scanForHolders: Bool = true,
        select: (HeapScan, UnsafeBufferPointer<UInt>) -> [Int]
    ) -> Found {
        HolderScan.enterCheck()
        defer { HolderScan.leaveCheck() }
        let found = Recorder.ignoringCurrentThread { () -> (Found, [UInt], [String?]) in
            Recorder.withFrozenObjects { objects -> (Found, [UInt], [String?]) in
                let record = { (position: Int) in
                    Recorder.frozenRecord(at: objects[position]).map(HeapObjectRecord.init)
                        ?? HeapObjectRecord(address: objects[position], metadata: 0, size: 0)
                }
                let walker = HeapWalker()
                let scan = walker.scan(addresses: objects, record: record)
                let selected = select(scan, objects)
                let strong = scan.strongGraph
                let reversed = RetainerPaths.Reversed(strong)
                // Leaked objects have no chain (the leak report explains them): found once, for all.
                var isLeaked = [Bool](repeating: false, count: strong.nodeCount)
                for node in LeakAnalysis.leakedNodes(of: strong) { isLeaked[node] = true }
                let leaked = selected.filter { isLeaked[$0] }.count
                var chainsOfNodes: [[Int]] = []
                for node in selected where !isLeaked[node] {
                    guard chainsOfNodes.count < limit else { break }
                    if let chain = RetainerPaths.shortestChain(to: node, in: strong, reversed: reversed) {
                        chainsOfNodes.append(chain)
                    }
                }
                let chains = labelledChains(
                    chainsOfNodes, scan: scan, walker: walker, objects: objects, record: record, reversed: reversed)
                // The roots' holders: the scan reads everything but the check's own memory.
                var untracked = [UInt](repeating: 0, count: chains.count)
                var unreadFieldType = [String?](repeating: nil, count: chains.count)
                if scanForHolders, !chainsOfNodes.isEmpty {
                    let roots = Array(Set(chainsOfNodes.map { $0[0] })).sorted()
                    let result = HolderScan.scan(nodes: roots, in: scan, objects: objects)
                    if let result {
                        let rootIndex = Dictionary(uniqueKeysWithValues: roots.enumerated().map { ($1, $0) })
                        for (position, chain) in chainsOfNodes.enumerated() {
                            let candidate = rootIndex[chain[0]]!
                            untracked[position] = result.firstUntrackedHolder[candidate]
                            if untracked[position] == 0,
                                let hit = result.trackedHolders.first(where: {
                                    $0.candidate == candidate
                                        && $0.holder != objects[scan.recordPosition(ofNode: chain[0])]
                                }),
                                let holder = scan.node(at: hit.holder, address: { objects[$0] })
                            {
                                unreadFieldType[position] = scan.typeName(ofNode: holder)
                            }
                        }
                    }
                }
                return (Found(chains: chains, matched: selected.count, leaked: leaked), untracked, unreadFieldType)
            }
        }
        var result = found.0
        let naming = RetainerHolderNaming()
        for index in result.chains.indices where scanForHolders {
            if let type = found.2[index] {
                result.chains[index].holder = RetainerChain.Holder(kind: .unreadField, name: type)
            } else {
                result.chains[index].holder = naming.holder(at: found.1[index])
            }
        }
        return result
    }

    /// The chains as report values: a typed walk of the chains' objects gives each step's label.
    private static func labelledChains(
        _ chains: [[Int]], scan: HeapScan, walker: HeapWalker, objects: UnsafeBufferPointer<UInt>,
        record: (Int) -> HeapObjectRecord, reversed: RetainerPaths.Reversed
    ) -> [RetainerChain] {
        guard !chains.isEmpty else { return [] }
        let nodes = Array(Set(chains.joined())).sorted()
        let position = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, $0) })
        let graph = walker.objectGraph(of: nodes, in: scan, address: { objects[$0] }, record: record)
        var paths: [Int: [Int: ReferencePath]] = [:]  // from → to → path (strong references only)
        for reference in graph.references where reference.ownership == .strong {
            if paths[reference.from]?[reference.to] == nil {
                paths[reference.from, default: [:]][reference.to] = reference.path
            }
        }
        return chains.map { chain in
            var links: [RetainerChain.Link] = []
            for (index, node) in chain.enumerated() {
                let graphNode = graph.nodes[position[node]!]
                let path = index == 0 ? nil : paths[position[chain[index - 1]]!]?[position[node]!]
                links.append(
                    RetainerChain.Link(
                        type: graphNode.typeName, address: "0x" + String(graphNode.address, radix: 16),
                        retainCount: graphNode.retainCount, path: index == 0 ? nil : (path ?? [.label("?")])))
            }
            let root = chain[0]
            let unexplained = Int(scan.strongGraph.retainCounts[root]) - reversed.inDegree(of: root)
            return RetainerChain(
                links: links, holder: RetainerChain.Holder(kind: .unknown), unexplainedRetains: max(unexplained, 1))
        }
    }
}
