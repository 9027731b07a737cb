// SnapshotGraph: the heap-snapshot workload of scripts/bench-snapshot. Builds COUNT live objects with
// two strong references each (2 × COUNT references): node i refers to node i − 1 (a chain) and to an
// earlier node picked by a fixed hash of i (so the graph is not a tree); a global holds the last node, so
// every node is live at exit and reachable. Deterministic: the same COUNT gives the same graph.
//
// Usage: SnapshotGraph COUNT   e.g. `SnapshotGraph 1000000`

#if canImport(Glibc)
    import Glibc
#endif

final class Node {
    var previous: Node?
    var earlier: Node?
}

/// The last node: a global, so the whole graph is reachable at exit.
nonisolated(unsafe) var newest: Node?

@inline(never)
func build(count: Int) -> Node? {
    var nodes: [Node] = []
    nodes.reserveCapacity(count)
    for index in 0..<count {
        let node = Node()
        if index > 0 {
            node.previous = nodes[index - 1]
            node.earlier = nodes[Int((UInt64(index) &* 0x9E37_79B9_7F4A_7C15) >> 33) % index]
        }
        nodes.append(node)
    }
    return nodes.last
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let count = Int(arguments.first!), count > 0 else {
    print("usage: SnapshotGraph COUNT")
    exit(64)
}
newest = build(count: count)
print("SnapshotGraph: \(count) nodes")
