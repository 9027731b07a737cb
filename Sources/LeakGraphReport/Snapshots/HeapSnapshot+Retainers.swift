import LeakGraphAnalysis
import LeakGraphModel

extension HeapSnapshot {
    /// Why `object` is alive: the shortest chain of strong references from a root to it
    /// (``RetainerPaths/shortestChain(to:in:reversed:)``), each step labelled with its path, and what
    /// holds the root (the snapshot's root table); `nil` when no root reaches it (it is leaked).
    public func retainerChain(to object: Int, strong: StrongReferenceGraph, reversed: RetainerPaths.Reversed)
        -> RetainerChain?
    {
        guard let chain = RetainerPaths.shortestChain(to: object, in: strong, reversed: reversed) else { return nil }
        var links: [RetainerChain.Link] = []
        for (position, node) in chain.enumerated() {
            var label: String?
            if position > 0 {
                let previous = chain[position - 1]
                let reference = references.range(of: previous).first {
                    Int(references.targets[$0]) == node && ownership(ofReference: $0) == .strong
                }
                label = reference.map { path(ofReference: $0).text } ?? "?"
            }
            links.append(
                RetainerChain.Link(
                    type: type(of: node).name, address: addressText(of: node),
                    retainCount: Int(objects.retainCount[node]), label: label))
        }
        let root = chain[0]
        let entry = roots.first { $0.object == root }
        let unexplained = Int(objects.retainCount[root]) - reversed.inDegree(of: root)
        return RetainerChain(
            links: links, holder: entry?.holder ?? RootHolder(kind: .unknown), unexplainedRetains: max(unexplained, 1))
    }

    /// Why the objects of `type` (a full name, or without its module) are alive: one chain per object a
    /// root reaches, at most `limit`, and how many are leaked — as `leakgraph run --why` answers it.
    public func retainers(ofType type: String, limit: Int = 10) -> RetainerQuery {
        let matching = Set(
            types.indices.filter { types[$0].name == type || ReportNaming.shortName(types[$0].name) == type })
        let selected = (0..<objects.count).filter { matching.contains(Int(objects.type[$0])) }
        return retainers(of: selected, asked: type, limit: limit)
    }

    /// Why the objects `selected` are alive (see ``retainers(ofType:limit:)``); `asked` is what the
    /// answer names.
    public func retainers(of selected: [Int], asked: String, limit: Int = 10) -> RetainerQuery {
        let strong = strongGraph()
        let reversed = RetainerPaths.Reversed(strong)
        var chains: [RetainerChain] = []
        var leaked = 0
        for object in selected {
            if objects.flags[object].contains(.leaked) {
                leaked += 1
                continue
            }
            guard chains.count < limit else { continue }
            if let chain = retainerChain(to: object, strong: strong, reversed: reversed) { chains.append(chain) }
        }
        return RetainerQuery(type: asked, matched: selected.count, leaked: leaked, chains: chains)
    }
}
