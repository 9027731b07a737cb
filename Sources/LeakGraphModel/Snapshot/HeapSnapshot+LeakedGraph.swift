extension HeapSnapshot {
    /// The leaked objects of the snapshot, in object order.
    public var leakedObjects: [Int] {
        objects.flags.indices.filter { objects.flags[$0].contains(.leaked) }
    }

    /// The ``ObjectGraph`` of the leaked objects alone, as a leak check builds it from the same walk:
    /// their nodes (in object order, each node's ``ObjectNode/stackID`` the snapshot's stack index) and
    /// every reference between two of them, of every ownership, in the order the walk found them; the
    /// orphans; the other live objects counted in ``ObjectGraph/liveObjectsLeftOut``. Analysing it
    /// gives the leak report of the check the snapshot was taken with.
    ///
    /// - Complexity: O(*k* + *r* + log *n*) for *k* leaked objects and their *r* references.
    public func leakedGraph() -> ObjectGraph {
        let leaked = leakedObjects
        var position = [Int: Int](minimumCapacity: leaked.count)
        for (index, object) in leaked.enumerated() { position[object] = index }
        var graph = ObjectGraph(
            diagnostics: diagnostics, trackedObjects: info.trackedObjects,
            liveObjectsLeftOut: objects.count - leaked.count)
        graph.nodes = leaked.map { node(of: $0) }
        for (source, object) in leaked.enumerated() {
            for reference in references.range(of: object) {
                guard let target = position[Int(references.targets[reference])] else { continue }
                graph.references.append(
                    LeakGraphModel.Reference(
                        from: source, to: target, path: path(ofReference: reference),
                        ownership: ownership(ofReference: reference)))
            }
        }
        graph.orphans = leaked.indices.filter { objects.flags[leaked[$0]].contains(.orphan) }
        return graph
    }

    /// Object `id` as a graph node (its ``ObjectNode/stackID`` is the snapshot's stack index).
    public func node(of id: Int) -> ObjectNode {
        let type = type(of: id)
        let stack = objects.stack[id]
        return ObjectNode(
            address: objects.address[id], typeName: type.name, kind: type.kind, size: Int(objects.size[id]),
            retainCount: Int(objects.retainCount[id]), stackID: stack < 0 ? nil : Int(stack))
    }
}
