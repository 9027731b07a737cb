/// Strongly connected components of a subgraph, by Tarjan's algorithm without recursion.
package enum StronglyConnectedComponents {
    /// The result: a component number per node (`-1` for nodes outside the subgraph) and the count.
    package struct Result: Sendable {
        /// `component[n]` is node `n`'s component, in `0 ..< count`, or `-1` when `n` is not included.
        package var component: [Int]
        /// The number of components.
        package var count: Int
    }

    /// The strongly connected components of the whole graph of `adjacency`.
    ///
    /// - Complexity: O(*n* + *e*) time and O(*n*) extra space.
    package static func compute(_ adjacency: StrongAdjacency) -> Result {
        compute(adjacency, included: [Bool](repeating: true, count: adjacency.nodeCount))
    }

    /// Computes the strongly connected components of the subgraph of `adjacency` induced by the nodes
    /// whose `included` flag is set.
    ///
    /// The depth-first search keeps its own stack of `(node, next edge)` frames on the heap, so a chain of a
    /// million nodes needs no deeper call stack than a chain of two. Components are numbered in the order
    /// Tarjan's algorithm completes them (a reverse topological order of the condensation).
    ///
    /// - Complexity: O(*n* + *e*) time and O(*n*) extra space.
    package static func compute(_ adjacency: StrongAdjacency, included: [Bool]) -> Result {
        let nodeCount = adjacency.nodeCount
        var order = [Int](repeating: -1, count: nodeCount)
        var lowLink = [Int](repeating: 0, count: nodeCount)
        var onStack = [Bool](repeating: false, count: nodeCount)
        var component = [Int](repeating: -1, count: nodeCount)
        var sccStack: [Int] = []
        var frames: [(node: Int, nextEdge: Int)] = []
        var nextOrder = 0
        var count = 0

        for start in 0..<nodeCount where included[start] && order[start] == -1 {
            order[start] = nextOrder
            lowLink[start] = nextOrder
            nextOrder += 1
            sccStack.append(start)
            onStack[start] = true
            frames.append((start, 0))

            while let frame = frames.last {
                let node = frame.node
                let edges = adjacency.neighbors(of: node)
                var edge = edges.startIndex + frame.nextEdge
                var descended = false
                while edge < edges.endIndex {
                    let target = edges[edge]
                    edge += 1
                    guard included[target] else { continue }
                    if order[target] == -1 {
                        frames[frames.count - 1].nextEdge = edge - edges.startIndex
                        order[target] = nextOrder
                        lowLink[target] = nextOrder
                        nextOrder += 1
                        sccStack.append(target)
                        onStack[target] = true
                        frames.append((target, 0))
                        descended = true
                        break
                    } else if onStack[target] {
                        lowLink[node] = min(lowLink[node], order[target])
                    }
                }
                if descended { continue }

                frames.removeLast()
                if lowLink[node] == order[node] {
                    while let member = sccStack.popLast() {
                        onStack[member] = false
                        component[member] = count
                        if member == node { break }
                    }
                    count += 1
                }
                if let parent = frames.last {
                    lowLink[parent.node] = min(lowLink[parent.node], lowLink[node])
                }
            }
        }
        return Result(component: component, count: count)
    }
}
