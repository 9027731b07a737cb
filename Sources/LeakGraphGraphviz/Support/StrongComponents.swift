/// Strongly connected components of a small directed graph given as adjacency lists, found iteratively
/// (Tarjan's algorithm with an explicit stack), so a chain of a million objects is safe.
enum StrongComponents {
    /// The component of each node: `result[v]` is a component number in `0 ..< count`, numbered in the
    /// order Tarjan's algorithm completes them (reverse topological order).
    ///
    /// - Parameter successors: for each node `0 ..< successors.count`, the nodes it references.
    /// - Returns: the component per node and the number of components.
    /// - Complexity: O(*n* + *e*).
    static func components(successors: [[Int]]) -> (component: [Int], count: Int) {
        let nodeCount = successors.count
        var index = [Int](repeating: -1, count: nodeCount)
        var lowLink = [Int](repeating: 0, count: nodeCount)
        var onStack = [Bool](repeating: false, count: nodeCount)
        var component = [Int](repeating: -1, count: nodeCount)
        var stack: [Int] = []
        var work: [(node: Int, edge: Int)] = []
        var nextIndex = 0
        var count = 0

        for start in 0 ..< nodeCount where index[start] == -1 {
            work.append((start, 0))
            index[start] = nextIndex
            lowLink[start] = nextIndex
            nextIndex += 1
            stack.append(start)
            onStack[start] = true
            while let (node, edge) = work.last {
                let edges = successors[node]
                if edge < edges.count {
                    work[work.count - 1].edge = edge + 1
                    let target = edges[edge]
                    if index[target] == -1 {
                        index[target] = nextIndex
                        lowLink[target] = nextIndex
                        nextIndex += 1
                        stack.append(target)
                        onStack[target] = true
                        work.append((target, 0))
                    } else if onStack[target] {
                        lowLink[node] = min(lowLink[node], index[target])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node {
                    lowLink[parent] = min(lowLink[parent], lowLink[node])
                }
                if lowLink[node] == index[node] {
                    while let member = stack.popLast() {
                        onStack[member] = false
                        component[member] = count
                        if member == node { break }
                    }
                    count += 1
                }
            }
        }
        return (component, count)
    }
}
