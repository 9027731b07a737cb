import LeakGraphHeap
import LeakGraphModel

/// The leaked objects a monitor's previous check confirmed, as its next forked child compares them: an
/// object found leaked again, unchanged, is not sent back (its part of the graph is the one the parent
/// holds), so a check costs what the program leaked since, not every leak of its life.
///
/// Unchanged means: at the same address, leaked, of the same type, with the same retain count and the
/// same strong references (by target address). A leaked object cannot change — nothing reaches it — and
/// a new strong reference into it would change its count. The objects left out are also closed over
/// references: one is left out only when every object it references is, and no object sent references
/// it, so the graph the parent puts back together (``merged(keeping:with:)``) is the whole leaked graph
/// with every reference between its two parts (there are none).
///
/// It keeps no object's address as it is: between checks it lives in the monitor's memory, which an
/// orphan scan reads (a check with `scansForOrphans`, or another check in the process), and an address
/// kept there would read as a holder of its leaked object. Every address is stored inverted
/// (``stored(_:)``) and turned back only in the graph ``merged(keeping:with:)`` returns.
struct KnownLeaks: Sendable {
    /// What a known object must still be to be left out.
    struct Object {
        var typeName: String
        var retainCount: Int
        /// The addresses of its strong references' targets, ascending (repeats kept).
        var strongTargets: [UInt64]
    }

    /// The confirmed leaked objects' graph (the previous check's, restricted to its confirmed leaks), each
    /// node's address ``stored(_:)``.
    private let graph: ObjectGraph
    /// Each object of the graph by ``stored(_:)`` address.
    let objects: [UInt64: Object]

    /// An address as this value keeps it (and back): inverted, so that no word of it points at an object.
    static func stored(_ address: UInt64) -> UInt64 { ~address }

    init(graph: ObjectGraph) {
        self.init(storedGraph: Self.storing(graph))
    }

    /// `graph` with every node's address ``stored(_:)``: how a check keeps its leaked graph for the
    /// monitor (``MeasuredLeakCheck``) while the confirmation, which may scan for holders, runs.
    static func storing(_ graph: ObjectGraph) -> ObjectGraph {
        var graph = graph
        for index in graph.nodes.indices { graph.nodes[index].address = stored(graph.nodes[index].address) }
        return graph
    }

    /// The known leaks of `graph`, whose addresses are ``stored(_:)`` already.
    init(storedGraph graph: ObjectGraph) {
        self.graph = graph
        var targets = [[UInt64]](repeating: [], count: graph.nodes.count)
        for reference in graph.references
        where reference.ownership == .strong && graph.nodes.indices.contains(reference.from)
            && graph.nodes.indices.contains(reference.to)
        {
            targets[reference.from].append(graph.nodes[reference.to].address)
        }
        var objects: [UInt64: Object] = [:]
        objects.reserveCapacity(graph.nodes.count)
        for (index, node) in graph.nodes.enumerated() {
            objects[node.address] = Object(
                typeName: node.typeName, retainCount: node.retainCount, strongTargets: targets[index].sorted())
        }
        self.objects = objects
    }

    /// In the child: which of the `leaked` nodes of `scan` (ascending) are known and unchanged, closed
    /// over references as the type's documentation says. `address` gives a node's address.
    ///
    /// - Complexity: O(*k* log *k* + *e*) for the *k* leaked nodes and their *e* strong references.
    func unchanged(leaked: [Int], in scan: HeapScan, address: (Int) -> UInt64) -> [Bool] {
        guard !objects.isEmpty else { return [Bool](repeating: false, count: leaked.count) }
        let graph = scan.strongGraph
        /// The position of `node` in `leaked`, or `nil`.
        func position(_ node: Int) -> Int? {
            var low = 0
            var high = leaked.count
            while low < high {
                let middle = (low + high) / 2
                if leaked[middle] < node { low = middle + 1 } else { high = middle }
            }
            return low < leaked.count && leaked[low] == node ? low : nil
        }
        func targets(of node: Int) -> ArraySlice<UInt32> {
            graph.targets[Int(graph.offsets[node])..<Int(graph.offsets[node + 1])]
        }
        var kept = leaked.map { node -> Bool in
            guard let known = objects[Self.stored(address(node))], known.retainCount == Int(graph.retainCounts[node]),
                known.typeName == scan.typeName(ofNode: node)
            else { return false }
            return targets(of: node).map { Self.stored(address(Int($0))) }.sorted() == known.strongTargets
        }
        // Closed over references: a kept object referencing one sent, or referenced by one, is sent too.
        var changed = true
        while changed {
            changed = false
            for (source, node) in leaked.enumerated() {
                for target in targets(of: node) {
                    guard let at = position(Int(target)) else { continue }
                    if kept[source] != kept[at] {
                        kept[source] = false
                        kept[at] = false
                        changed = true
                    }
                }
            }
        }
        return kept
    }

    /// In the parent: the whole leaked graph of a check whose child left out the known objects at
    /// `unchanged` and sent `fresh` (the graph of the others): both parts' nodes in address order, each
    /// part's references renumbered; the diagnostics and counts are the check's (`fresh`'s), its live
    /// objects left out less those put back.
    func merged(keeping unchanged: Set<UInt64>, with fresh: ObjectGraph) -> ObjectGraph {
        guard !unchanged.isEmpty else { return fresh }
        var known = graph.keeping(addresses: Set(unchanged.map(Self.stored)))
        for index in known.nodes.indices { known.nodes[index].address = Self.stored(known.nodes[index].address) }
        var merged = ObjectGraph(
            diagnostics: fresh.diagnostics, trackedObjects: fresh.trackedObjects,
            liveObjectsLeftOut: max(0, fresh.liveObjectsLeftOut - known.nodes.count))
        merged.liveTypes = fresh.liveTypes
        merged.nodes.reserveCapacity(known.nodes.count + fresh.nodes.count)
        var knownIndex = [Int](repeating: 0, count: known.nodes.count)
        var freshIndex = [Int](repeating: 0, count: fresh.nodes.count)
        var next = (known: 0, fresh: 0)
        while next.known < known.nodes.count || next.fresh < fresh.nodes.count {
            let takeKnown =
                next.fresh == fresh.nodes.count
                || (next.known < known.nodes.count
                    && known.nodes[next.known].address < fresh.nodes[next.fresh].address)
            if takeKnown {
                knownIndex[next.known] = merged.nodes.count
                merged.nodes.append(known.nodes[next.known])
                next.known += 1
            } else {
                freshIndex[next.fresh] = merged.nodes.count
                merged.nodes.append(fresh.nodes[next.fresh])
                next.fresh += 1
            }
        }
        // Each part's references are in source order, and renumbering keeps that order: merged by source,
        // each source's references stay in the order its walk found them.
        let knownReferences = known.references.map {
            Reference(from: knownIndex[$0.from], to: knownIndex[$0.to], path: $0.path, ownership: $0.ownership)
        }
        let freshReferences = fresh.references.map {
            Reference(from: freshIndex[$0.from], to: freshIndex[$0.to], path: $0.path, ownership: $0.ownership)
        }
        merged.references.reserveCapacity(knownReferences.count + freshReferences.count)
        var position = (known: 0, fresh: 0)
        while position.known < knownReferences.count || position.fresh < freshReferences.count {
            if position.fresh == freshReferences.count
                || (position.known < knownReferences.count
                    && knownReferences[position.known].from < freshReferences[position.fresh].from)
            {
                merged.references.append(knownReferences[position.known])
                position.known += 1
            } else {
                merged.references.append(freshReferences[position.fresh])
                position.fresh += 1
            }
        }
        return merged
    }
}

extension ObjectGraph {
    /// The graph of only the nodes at `addresses`, with the references between two of them, in their
    /// order; diagnostics and counts kept, retain histories and orphans dropped.
    func keeping(addresses: Set<UInt64>) -> ObjectGraph {
        var newIndex = [Int?](repeating: nil, count: nodes.count)
        var kept = ObjectGraph(
            diagnostics: diagnostics, trackedObjects: trackedObjects,
            liveObjectsLeftOut: liveObjectsLeftOut + nodes.count)
        for (index, node) in nodes.enumerated() where addresses.contains(node.address) {
            newIndex[index] = kept.nodes.count
            kept.nodes.append(node)
        }
        kept.liveObjectsLeftOut -= kept.nodes.count
        kept.liveTypes = liveTypes
        kept.references = references.compactMap { reference in
            guard nodes.indices.contains(reference.from), nodes.indices.contains(reference.to),
                let from = newIndex[reference.from], let to = newIndex[reference.to]
            else { return nil }
            return Reference(from: from, to: to, path: reference.path, ownership: reference.ownership)
        }
        return kept
    }
}
